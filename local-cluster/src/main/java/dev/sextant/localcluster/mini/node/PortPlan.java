package dev.sextant.localcluster.mini.node;

import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.IntSupplier;

/**
 * The 127.0.0.1 ports forwarded to every node's guest ports, chosen before any node boots: the
 * nodes must be told where the control planes' join services are, and a control plane where its etcd
 * member is reached from the others (10.0.2.2 is the host in QEMU's user network, so one guest reaches
 * another only through that guest's forward).
 */
public final class PortPlan {
    private final Map<String, Map<Integer, Integer>> guestToHostByNode;

    private PortPlan(Map<String, Map<Integer, Integer>> guestToHostByNode) {
        this.guestToHostByNode = guestToHostByNode;
    }

    /**
     * Picks distinct host ports from {@code freePort} (the kernel's choice, or a test's) for each
     * node's guest ports, in node order.
     */
    public static PortPlan pick(Map<String, NodeRole> nodes, IntSupplier freePort) {
        Set<Integer> taken = new HashSet<>();
        Map<String, Map<Integer, Integer>> plan = new LinkedHashMap<>();
        nodes.forEach((name, role) -> {
            Map<Integer, Integer> ports = new LinkedHashMap<>();
            for (int guestPort : role.guestPorts()) {
                ports.put(guestPort, distinct(freePort, taken));
            }
            plan.put(name, Collections.unmodifiableMap(ports));
        });
        return new PortPlan(Collections.unmodifiableMap(plan));
    }

    private static int distinct(IntSupplier freePort, Set<Integer> taken) {
        // The kernel may hand back a port it just gave out, since each probe socket is closed again.
        for (int attempt = 0; attempt < 100; attempt++) {
            int port = freePort.getAsInt();
            if (port < 1 || port > 65535) {
                throw new IllegalStateException("not a TCP port: " + port);
            }
            if (taken.add(port)) {
                return port;
            }
        }
        throw new IllegalStateException("found no free loopback port distinct from " + taken);
    }

    /** Guest port to host port for {@code node}. */
    public Map<Integer, Integer> ports(String node) {
        Map<Integer, Integer> ports = guestToHostByNode.get(node);
        if (ports == null) {
            throw new IllegalArgumentException("no ports planned for " + node + "; nodes: " + guestToHostByNode.keySet());
        }
        return ports;
    }

    /**
     * "10.0.2.2:P0,10.0.2.2:P1,...": every control plane's join service as a guest reaches it, in node
     * order, so a node asks the next when one does not answer.
     */
    public String joinEndpoints() {
        return String.join(",", guestToHostByNode.values().stream().filter(p -> p.containsKey(NodeRole.JOIN_PORT))
                .map(p -> NodeSettings.HOST_FROM_GUEST + ":" + p.get(NodeRole.JOIN_PORT)).toList());
    }

    /** "10.0.2.2:PEER:CLIENT": where the other guests and the host reach {@code node}'s etcd member. */
    public String etcdAdvertise(String node) {
        return NodeSettings.HOST_FROM_GUEST + ":" + hostPort(node, NodeRole.ETCD_PEER_PORT) + ":"
                + hostPort(node, NodeRole.ETCD_CLIENT_PORT);
    }

    /** Where a guest reaches {@code node}'s VerifyService: the host's forward to its bootstrapper port. */
    public String verifyAdvertise(String node) {
        return NodeSettings.HOST_FROM_GUEST + ":" + hostPort(node, NodeRole.BOOTSTRAPPER_PORT);
    }

    /** The host port forwarded to {@code guestPort} of {@code node}. */
    public int hostPort(String node, int guestPort) {
        Integer port = ports(node).get(guestPort);
        if (port == null) {
            throw new IllegalArgumentException(node + " has no forward for guest port " + guestPort);
        }
        return port;
    }
}
