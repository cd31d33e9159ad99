package dev.sextant.localcluster.qemu;

/**
 * Whether a node's processes end with the JVM that started them (tests: a shutdown hook stops
 * them) or outlive it ({@code sextant mini up}: the processes are the cluster, started in their
 * own session so a Ctrl-C in the terminal does not reach them, and stopped later by pid).
 */
public enum Lifetime {
    TIED_TO_JVM, DETACHED
}
