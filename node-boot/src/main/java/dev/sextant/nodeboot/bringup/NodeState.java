package dev.sextant.nodeboot.bringup;

import dev.sextant.keys.member.MemberCredentials;

import java.util.Base64;
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
 * @param member              this node's discovery member key and certificate, kept for every later
 *                            boot (a rejoin, or a recovery without any join service); null on a node
 *                            that joined without one
 */
public record NodeState(String role, String nodeName, String clusterIdHex, String since, String discoveryKeyBase64,
                        KubernetesRole kubernetes, boolean nodeLocalServices, Map<String, String> dataVolumeKeys,
                        Member member) {

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

    /**
     * {@link MemberCredentials} as stored, base64. Holds a private key: no toString with content.
     */
    public record Member(String privateKeyBase64, String certificateBase64, String caPublicKeyBase64) {
        public static Member of(MemberCredentials c) {
            Base64.Encoder b64 = Base64.getEncoder();
            return c == null ? null : new Member(b64.encodeToString(c.privateKey()), b64.encodeToString(c.certificate()),
                    b64.encodeToString(c.caPublicKey()));
        }

        public MemberCredentials credentials() {
            Base64.Decoder b64 = Base64.getDecoder();
            return new MemberCredentials(b64.decode(privateKeyBase64), b64.decode(certificateBase64),
                    b64.decode(caPublicKeyBase64));
        }

        @Override
        public String toString() {
            return "Member[secrets redacted]";
        }
    }

    public NodeState withDataVolumeKeys(Map<String, String> keys) {
        return new NodeState(role, nodeName, clusterIdHex, since, discoveryKeyBase64, kubernetes, nodeLocalServices, keys,
                member);
    }

    @Override
    public String toString() {
        return "NodeState[role=" + role + ", nodeName=" + nodeName + ", since=" + since + ", secrets redacted]";
    }
}
