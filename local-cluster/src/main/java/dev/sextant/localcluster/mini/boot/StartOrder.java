package dev.sextant.localcluster.mini.boot;

import dev.sextant.localcluster.mini.files.MiniState;
import dev.sextant.localcluster.mini.node.NodeRole;
import java.util.Comparator;
import java.util.List;

/**
 * The order a stopped cluster comes back in. No join service answers before etcd has a quorum, so
 * the first {@link #quorum} control planes are recovered with the operator's master secret, all
 * together (each one's etcd waits for the others); the init node is among them, since it was told of
 * no join service. The other control planes then rejoin through them, and the workers after those:
 * guests booting at once share the host's cores, so each wave comes back sooner alone.
 */
public record StartOrder(List<MiniState.Node> recovered, List<MiniState.Node> rejoining, List<MiniState.Node> workers) {
    public StartOrder {
        recovered = List.copyOf(recovered);
        rejoining = List.copyOf(rejoining);
        workers = List.copyOf(workers);
    }

    /** {@code nodes} in any order (mini.json lists a node last once it was powered on again). */
    public static StartOrder of(List<MiniState.Node> nodes) {
        List<MiniState.Node> controlPlanes = byIndex(nodes, NodeRole.CONTROL_PLANE);
        int quorum = quorum(controlPlanes.size());
        return new StartOrder(controlPlanes.subList(0, quorum), controlPlanes.subList(quorum, controlPlanes.size()),
                byIndex(nodes, NodeRole.WORKER));
    }

    /** The members etcd needs to elect a leader: a majority of {@code controlPlanes}. */
    public static int quorum(int controlPlanes) {
        return controlPlanes / 2 + 1;
    }

    /**
     * Whether {@code node}, powered on again, comes back through a join service by itself: a worker
     * always; a control plane when it was told of the join services and a quorum of the cluster's
     * control planes runs besides it. Otherwise it waits for {@code sextant recover}.
     */
    public static boolean rejoins(MiniState.Node node, boolean toldOfJoinServices, MiniState cluster) {
        if (node.role() != NodeRole.CONTROL_PLANE) {
            return true;
        }
        List<MiniState.Node> controlPlanes = cluster.nodes().stream().filter(n -> n.role() == NodeRole.CONTROL_PLANE).toList();
        long othersRunning = controlPlanes.stream().filter(n -> !n.name().equals(node.name()))
                .filter(n -> n.qemu() != null && n.qemu().alive()).count();
        return toldOfJoinServices && othersRunning >= quorum(controlPlanes.size());
    }

    private static List<MiniState.Node> byIndex(List<MiniState.Node> nodes, NodeRole role) {
        return nodes.stream().filter(n -> n.role() == role)
                .sorted(Comparator.comparingInt(n -> Integer.parseInt(n.name().substring(n.name().lastIndexOf('-') + 1))))
                .toList();
    }
}
