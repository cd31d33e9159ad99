package dev.sextant.joinapi.nodestate;

import dev.sextant.etcd.client.ConditionalWrite;
import dev.sextant.etcd.client.Fence;
import dev.sextant.etcd.client.Versioned;
import dev.sextant.grpcsupport.Refusal;
import dev.sextant.joinapi.clusterstore.EtcdConnection;
import dev.sextant.joinapi.refusal.JoinRefusal;
import jakarta.inject.Singleton;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The nodes' state in the cluster's etcd, keys as docs/re-attestation.md lays them out: each node's
 * reported endpoint and attestation record, the revoked AKs and the revocations counter. Every etcd
 * failure is the cluster store's UNAVAILABLE refusal ({@link EtcdConnection#call}); a value that is not
 * what this store writes is an {@link IllegalStateException} naming its key.
 *
 * <p>Writes of the re-attestation holder take its tenure's {@link Fence}: a holder paused past its term
 * writes nothing. The join service's own writes (an endpoint at a ticket, the operator's revocation) take
 * none: they are not the duty's.
 */
@Singleton
public class NodeStateStore {
    /** Only another revocation raising the counter at the same moment makes a revocation's transaction lose. */
    private static final int REVOKE_ATTEMPTS = 5;
    private final EtcdConnection etcd;
    private final Clock clock;

    public NodeStateStore(EtcdConnection etcd, Clock clock) {
        this.etcd = etcd;
        this.clock = clock;
    }

    /** Keeps {@code endpoint} ("host:port", checked by the caller) as where {@code node}'s VerifyService answers. */
    public void recordEndpoint(String node, String endpoint) throws Refusal {
        String key = NodeStateKeys.endpoint(node);
        etcd.call(c -> c.put(key, endpoint));
    }

    /** The endpoint {@code node} reported with its last ticket request; empty before any. */
    public Optional<String> endpoint(String node) throws Refusal {
        String key = NodeStateKeys.endpoint(node);
        return etcd.call(c -> c.get(key));
    }

    /** Writes {@code node}'s attestation record, unfenced (tests and tools; the holder fences its writes). */
    public void recordAttestation(String node, NodeAttestation attestation) throws Refusal {
        String key = NodeStateKeys.attestation(node);
        etcd.call(c -> c.put(key, NodeStateJson.attestation(attestation)));
    }

    /** Writes {@code node}'s attestation record while {@code tenure} holds; false (nothing written) once it ended. */
    public boolean recordAttestation(String node, NodeAttestation attestation, Fence tenure) throws Refusal {
        String key = NodeStateKeys.attestation(node);
        return etcd.call(c -> c.putAllIf(Optional.of(tenure), Map.of(), Map.of(key, NodeStateJson.attestation(attestation)), List.of()))
                .written();
    }

    /** {@code node}'s attestation record; empty before the first round asked it. */
    public Optional<NodeAttestation> attestation(String node) throws Refusal {
        String key = NodeStateKeys.attestation(node);
        return etcd.call(c -> c.get(key)).map(value -> NodeStateJson.attestation(key, value));
    }

    /**
     * Revokes {@code ak} (bound to {@code node}) for {@code reason}, by {@code by}: in one transaction,
     * {@code revoked/<ak>} created only if absent, the node's record turned revoked and the counter raised.
     * Returns the revocation in force: this one, or the first one's when the AK was revoked before (a
     * revocation is final; a second one changes nothing, not even the counter).
     */
    public Revocation revoke(String node, String ak, String reason, String by) throws Refusal {
        return revoke(node, ak, reason, by, Optional.empty()).orElseThrow();
    }

    /**
     * {@link #revoke(String, String, String, String)} while {@code tenure} holds: empty, with nothing
     * written, once the holder's tenure ended.
     */
    public Optional<Revocation> revoke(String node, String ak, String reason, String by, Fence tenure) throws Refusal {
        return revoke(node, ak, reason, by, Optional.of(tenure));
    }

    private Optional<Revocation> revoke(String node, String ak, String reason, String by, Optional<Fence> tenure) throws Refusal {
        String revokedKey = NodeStateKeys.revoked(ak);
        String attestationKey = NodeStateKeys.attestation(node);
        Revocation revocation = new Revocation(node, reason, clock.instant(), by);
        for (int attempt = 0; attempt < REVOKE_ATTEMPTS; attempt++) {
            Optional<Revocation> earlier = revocation(ak);
            if (earlier.isPresent()) {
                return earlier;
            }
            Optional<Versioned> counter = etcd.call(c -> c.getVersioned(NodeStateKeys.REVOCATIONS_VERSION));
            long version = counter.map(v -> counter(v.value())).orElse(0L);
            NodeAttestation revoked = attestation(node).orElse(new NodeAttestation(AttestationState.REVOKED,
                    Optional.empty(), Optional.empty(), Optional.empty(), 0)).revoked(reason);
            Map<String, Long> unmodified = new LinkedHashMap<>();
            unmodified.put(revokedKey, 0L);
            unmodified.put(NodeStateKeys.REVOCATIONS_VERSION, counter.map(Versioned::modRevision).orElse(0L));
            Map<String, String> entries = new LinkedHashMap<>();
            entries.put(revokedKey, NodeStateJson.revocation(revocation));
            entries.put(attestationKey, NodeStateJson.attestation(revoked));
            entries.put(NodeStateKeys.REVOCATIONS_VERSION, Long.toString(version + 1));
            ConditionalWrite write = etcd.call(c -> c.putAllIf(tenure, unmodified, entries,
                    List.of(revokedKey, NodeStateKeys.REVOCATIONS_VERSION)));
            Versioned inForce = write.read().get(revokedKey);
            if (write.written() || inForce != null) {
                // Written: the read after the write is this revocation. Refused with the key present: the
                // first revocation (or this call's own first attempt, whose answer was lost) is the one in force.
                return Optional.of(NodeStateJson.revocation(revokedKey, inForce.value()));
            }
            Versioned counterNow = write.read().get(NodeStateKeys.REVOCATIONS_VERSION);
            long expected = counter.map(Versioned::modRevision).orElse(0L);
            if ((counterNow == null ? 0L : counterNow.modRevision()) == expected) {
                return Optional.empty(); // neither key moved: the fence refused, the tenure is over
            }
        }
        throw new Refusal(JoinRefusal.CLUSTER_STORE_UNAVAILABLE, "the revocations counter kept changing in the cluster store; retry later");
    }

    /** True when {@code ak} was revoked: a revocation is final for the AK. */
    public boolean isRevoked(String ak) throws Refusal {
        return revocation(ak).isPresent();
    }

    /** {@code ak}'s revocation; empty when it was never revoked. */
    public Optional<Revocation> revocation(String ak) throws Refusal {
        String key = NodeStateKeys.revoked(ak);
        return etcd.call(c -> c.get(key)).map(value -> NodeStateJson.revocation(key, value));
    }

    /** Every revocation by AK, and the counter (the version of the list they make). */
    public Revocations revocations() throws Refusal {
        Map<String, String> revoked = etcd.call(c -> c.getPrefix(NodeStateKeys.REVOKED));
        Optional<String> version = etcd.call(c -> c.get(NodeStateKeys.REVOCATIONS_VERSION));
        Map<String, Revocation> byAk = new LinkedHashMap<>();
        revoked.forEach((key, value) -> byAk.put(key.substring(NodeStateKeys.REVOKED.length()), NodeStateJson.revocation(key, value)));
        return new Revocations(version.map(NodeStateStore::counter).orElse(0L), byAk);
    }

    /**
     * Every node bound by name (bindings {@code bindings/node/<name>}), in name order, joined with its
     * role, endpoint, attestation record and revocation. Four reads.
     */
    public List<NodeStatus> all() throws Refusal {
        Map<String, String> names = etcd.call(c -> c.getPrefix(NodeStateKeys.NODE_BINDINGS));
        Map<String, String> machines = etcd.call(c -> c.getPrefix(NodeStateKeys.MACHINE_BINDINGS));
        Map<String, String> nodes = etcd.call(c -> c.getPrefix(NodeStateKeys.NODES));
        Map<String, String> revoked = etcd.call(c -> c.getPrefix(NodeStateKeys.REVOKED));
        List<NodeStatus> all = new ArrayList<>();
        names.forEach((nameKey, ak) -> {
            String name = nameKey.substring(NodeStateKeys.NODE_BINDINGS.length());
            String role = machines.getOrDefault(NodeStateKeys.MACHINE_BINDINGS + ak + "/role", "");
            Optional<String> endpoint = Optional.ofNullable(nodes.get(NodeStateKeys.endpoint(name)));
            String attestationKey = NodeStateKeys.attestation(name);
            Optional<NodeAttestation> attestation = Optional.ofNullable(nodes.get(attestationKey))
                    .map(value -> NodeStateJson.attestation(attestationKey, value));
            String revokedKey = NodeStateKeys.revoked(ak);
            Optional<Revocation> revocation = Optional.ofNullable(revoked.get(revokedKey))
                    .map(value -> NodeStateJson.revocation(revokedKey, value));
            AttestationState state = revocation.isPresent() ? AttestationState.REVOKED
                    : attestation.map(a -> a.state() == AttestationState.REVOKED ? AttestationState.UNREACHABLE : a.state())
                    .orElse(AttestationState.UNREACHABLE);
            String reason = revocation.map(Revocation::reason)
                    .or(() -> attestation.flatMap(NodeAttestation::failure))
                    .orElse(attestation.isPresent() ? "" : NodeStatus.NOT_REATTESTED_YET);
            all.add(new NodeStatus(name, ak, role, endpoint, attestation.flatMap(NodeAttestation::imageVersion),
                    attestation.flatMap(NodeAttestation::lastSuccess), state, reason,
                    attestation.map(NodeAttestation::missed).orElse(0)));
        });
        return all;
    }

    private static long counter(String value) {
        try {
            long version = Long.parseLong(value);
            if (version < 0) {
                throw new NumberFormatException();
            }
            return version;
        } catch (NumberFormatException e) {
            throw new IllegalStateException(NodeStateKeys.REVOCATIONS_VERSION + " in etcd is not a counter", e);
        }
    }
}
