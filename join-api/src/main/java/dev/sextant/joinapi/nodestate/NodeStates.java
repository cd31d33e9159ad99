package dev.sextant.joinapi.nodestate;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Every node bound by name as {@link NodeStateStore#states()} read them, all at one etcd revision: the
 * operator's view of each, and its attestation record with the revision a round's writes compare
 * ({@link VersionedAttestation#ABSENT} for a node without one), by node name.
 */
public record NodeStates(List<NodeStatus> nodes, Map<String, VersionedAttestation> attestations) {
    public NodeStates {
        nodes = List.copyOf(Objects.requireNonNull(nodes, "nodes"));
        attestations = Map.copyOf(Objects.requireNonNull(attestations, "attestations"));
    }

    /** {@code node}'s record as read; {@link VersionedAttestation#ABSENT} for a node without one, or not read. */
    public VersionedAttestation attestation(String node) {
        return attestations.getOrDefault(node, VersionedAttestation.ABSENT);
    }
}
