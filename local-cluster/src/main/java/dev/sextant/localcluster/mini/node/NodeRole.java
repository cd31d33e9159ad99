package dev.sextant.localcluster.mini.node;

import java.util.List;
import java.util.Locale;

/**
 * What a mini node is: the first node is initialized by the operator and runs the KMS and join
 * service (three JVMs, hence more memory); workers join it. The guest ports are those the node
 * serves: 7443 the bootstrapper (VerifyService always, InitService until bootstrapped), 7444 the
 * recovery service (a control plane whose disk waits for the operator's key at boot), 9090 the
 * join service's gRPC and 9091 its HTTP (/health, /prometheus), 6443 the Kubernetes API when the
 * image carries k3s, 2379 and 2380 the etcd member's client and peer ports (the other members and mini
 * reach them only through the host's forwards, as everything between guests does).
 */
public enum NodeRole {
    CONTROL_PLANE(2048, List.of(NodeRole.BOOTSTRAPPER_PORT, NodeRole.RECOVERY_PORT, NodeRole.JOIN_PORT,
            NodeRole.JOIN_HTTP_PORT, NodeRole.KUBERNETES_API_PORT, NodeRole.ETCD_CLIENT_PORT, NodeRole.ETCD_PEER_PORT)),
    WORKER(1536, List.of(NodeRole.BOOTSTRAPPER_PORT));

    public static final int BOOTSTRAPPER_PORT = 7443;
    /** Served while a control plane's initialized state disk waits for its key at boot. */
    public static final int RECOVERY_PORT = 7444;
    public static final int JOIN_PORT = 9090;
    public static final int JOIN_HTTP_PORT = 9091;
    public static final int KUBERNETES_API_PORT = 6443;
    public static final int ETCD_CLIENT_PORT = 2379;
    public static final int ETCD_PEER_PORT = 2380;

    private final int memoryMiB;
    private final List<Integer> guestPorts;

    NodeRole(int memoryMiB, List<Integer> guestPorts) {
        this.memoryMiB = memoryMiB;
        this.guestPorts = guestPorts;
    }

    public int memoryMiB() {
        return memoryMiB;
    }

    public List<Integer> guestPorts() {
        return guestPorts;
    }

    /** "control-plane" or "worker": the node-name prefix and the role the node reports on its console. */
    public String label() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    public String nodeName(int index) {
        return label() + "-" + index;
    }

    /** The index in a name {@link #nodeName} made ({@code control-plane-2}: 2). */
    public int indexOf(String nodeName) {
        String prefix = label() + "-";
        String index = nodeName.startsWith(prefix) ? nodeName.substring(prefix.length()) : "";
        if (!index.matches("0|[1-9][0-9]{0,3}")) {
            throw new IllegalArgumentException("'" + nodeName + "' is not a " + label() + " name");
        }
        return Integer.parseInt(index);
    }
}
