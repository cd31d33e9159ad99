package dev.sextant.nodeboot.bringup;

import java.util.Map;

/**
 * What a member node keeps about itself on its encrypted state disk, written at its first
 * membership and read back on every later boot: it is the only source of the role, the cluster ID
 * PCR 15 is marked with, and {@code since} after a recovery (the operator sends a disk key only).
 * Holds secrets (the discovery key, a join token, data volume keys): no toString with content.
 *
 * @param role                control-plane or worker (wins over configuration after a reboot)
 * @param nodeName            the Kubernetes node name this node joined as
 * @param clusterIdHex        the cluster ID, hex
 * @param since               ISO-8601 UTC time the state disk was first initialized
 * @param discoveryKeyBase64  endpoint-discovery group key
 * @param kubernetes          what ran: {@link KubernetesRole}
 * @param nodeLocalServices   the KMS and join service run as services of this node
 * @param dataVolumeKeys      LUKS UUID → base64 key of each data volume this node opened
 */
public record NodeState(String role, String nodeName, String clusterIdHex, String since, String discoveryKeyBase64,
                        KubernetesRole kubernetes, boolean nodeLocalServices, Map<String, String> dataVolumeKeys) {

    public NodeState {
        dataVolumeKeys = dataVolumeKeys == null ? Map.of() : Map.copyOf(dataVolumeKeys);
    }

    /**
     * What Kubernetes ran on this node, enough to start it again.
     *
     * @param mode      none, first-server, server or agent
     * @param serverUrl for server and agent: the API server joined
     * @param token     for server and agent: the join token
     */
    public record KubernetesRole(String mode, String serverUrl, String token) {
        public static final String NONE = "none";
        public static final String FIRST_SERVER = "first-server";

        public static KubernetesRole none() {
            return new KubernetesRole(NONE, "", "");
        }

        @Override
        public String toString() {
            return "KubernetesRole[mode=" + mode + ", serverUrl=" + serverUrl + ", token=<redacted>]";
        }
    }

    public NodeState withDataVolumeKeys(Map<String, String> keys) {
        return new NodeState(role, nodeName, clusterIdHex, since, discoveryKeyBase64, kubernetes, nodeLocalServices, keys);
    }

    @Override
    public String toString() {
        return "NodeState[role=" + role + ", nodeName=" + nodeName + ", since=" + since + ", secrets redacted]";
    }
}
