package dev.sextant.nodeboot.kubernetes;

/**
 * What a joining node needs from its ticket.
 *
 * @param serverUrl    https://HOST:PORT of the API server (k3s supervisor)
 * @param token        the k3s join token (K10...::id.secret); never logged
 * @param controlPlane join as an additional server rather than an agent
 */
public record JoinSettings(String nodeName, String serverUrl, String token, boolean controlPlane) {
    @Override
    public String toString() {
        return "JoinSettings[nodeName=" + nodeName + ", serverUrl=" + serverUrl + ", token=<redacted>, controlPlane="
                + controlPlane + "]";
    }
}
