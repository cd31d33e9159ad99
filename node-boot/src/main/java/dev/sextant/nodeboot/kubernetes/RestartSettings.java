package dev.sextant.nodeboot.kubernetes;

/**
 * Starting Kubernetes again after a reboot, from what the node ran before (its datastore and
 * certificates are on the state disk).
 *
 * @param nodeName     this node's name
 * @param firstServer  the node that started the cluster (k3s server over its own datastore)
 * @param controlPlane a server rather than an agent
 * @param serverUrl    the API server a joined node joined (empty for the first server)
 * @param token        the join token it joined with (never logged)
 */
public record RestartSettings(String nodeName, boolean firstServer, boolean controlPlane, String serverUrl, String token) {
    @Override
    public String toString() {
        return "RestartSettings[nodeName=" + nodeName + ", firstServer=" + firstServer + ", controlPlane=" + controlPlane
                + ", serverUrl=" + serverUrl + ", token=<redacted>]";
    }
}
