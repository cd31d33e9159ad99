package dev.sextant.cli.failure;

/**
 * Text that came from the other end (a node's status description, a rejection sentence quoting
 * evidence), made safe to print: a hostile node must not reach the operator's terminal with
 * control sequences.
 */
public final class Printable {
    private Printable() {}

    public static String of(String untrusted) {
        return untrusted.replaceAll("\\p{Cntrl}", "?");
    }
}
