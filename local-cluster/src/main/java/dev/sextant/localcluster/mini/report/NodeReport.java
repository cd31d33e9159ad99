package dev.sextant.localcluster.mini.report;

/**
 * One node as {@code sextant mini status} reports it; {@code etcd}: a control plane's member, "-" on a worker;
 * {@code volume}: a control plane's etcd data volume, the disk file and what this boot's console says of it.
 */
public record NodeReport(String name, String role, boolean qemuAlive, boolean swtpmAlive, String ports,
                         String lastStatus, String verify, String etcd, String volume) {
}
