package dev.sextant.joinapi.nodestate;

import dev.sextant.joinapi.binding.InMemoryBindingStoreDouble;
import io.micronaut.context.annotation.Replaces;
import io.micronaut.context.annotation.Requires;
import jakarta.inject.Singleton;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * TEST DOUBLE of the node state: endpoints and revocations in maps, for the join-service tests that keep
 * their bindings in {@link InMemoryBindingStoreDouble} (no etcd runs there). Active under the same
 * property; the operator's view and the holder's calls are real etcd's only ({@code NodeStateStoreTest}).
 */
@Singleton
@Replaces(NodeStateStore.class)
@Requires(property = InMemoryBindingStoreDouble.PROPERTY, value = "true")
public class InMemoryNodeStateDouble extends NodeStateStore {
    private final Map<String, String> endpoints = new ConcurrentHashMap<>();
    private final Map<String, byte[]> memberKeys = new ConcurrentHashMap<>();
    private final Map<String, Revocation> revoked = new ConcurrentHashMap<>();
    private final Map<String, AttestationRecord> attestations = new ConcurrentHashMap<>();
    private final Clock clock;

    public InMemoryNodeStateDouble(Clock clock) {
        super(null, clock);
        this.clock = clock;
    }

    @Override
    public void recordEndpoint(String node, String endpoint) {
        endpoints.put(node, endpoint);
    }

    @Override
    public void recordJoin(String node, Optional<String> endpoint, Optional<byte[]> memberKey) {
        endpoint.ifPresent(e -> endpoints.put(node, e));
        memberKey.ifPresent(k -> memberKeys.put(node, k.clone()));
    }

    /** As etcd's transaction: all of it unless the AK is revoked (one lock stands for the transaction). */
    @Override
    public synchronized AttestationWrite recordAttested(String node, String ak, String imageVersion, Optional<String> endpoint,
                                                        Optional<byte[]> memberKey) {
        if (revoked.containsKey(ak)) {
            return AttestationWrite.REVOKED;
        }
        attestations.put(node, AttestationRecord.attested(clock.instant(), imageVersion));
        recordJoin(node, endpoint, memberKey);
        return AttestationWrite.WRITTEN;
    }

    @Override
    public Optional<AttestationRecord> attestation(String node) {
        return Optional.ofNullable(attestations.get(node));
    }

    @Override
    public Optional<byte[]> memberKey(String node) {
        return Optional.ofNullable(memberKeys.get(node)).map(byte[]::clone);
    }

    @Override
    public Optional<String> endpoint(String node) {
        return Optional.ofNullable(endpoints.get(node));
    }

    @Override
    public synchronized Revocation revoke(String node, String ak, String reason, String by) {
        attestations.computeIfPresent(node, (n, a) -> revoked.containsKey(ak) ? a : a.revoked(reason));
        return revoked.computeIfAbsent(ak, a -> new Revocation(node, reason, clock.instant(), by));
    }

    @Override
    public Optional<Revocation> revocation(String ak) {
        return Optional.ofNullable(revoked.get(ak));
    }

    /** No revocation list is published from the double: the publisher finds nothing due (tested against real etcd). */
    @Override
    public long revocationsVersion() {
        return 0;
    }

    /** As etcd's transaction: only while the node has no record and the AK is not revoked. */
    @Override
    public synchronized AttestationWrite recordInitNode(String node, String ak) {
        if (revoked.containsKey(ak)) {
            return AttestationWrite.REVOKED;
        }
        AttestationRecord atInit = new AttestationRecord(AttestationState.ATTESTED, Optional.of(clock.instant()), Optional.empty(),
                Optional.empty(), 0);
        return attestations.putIfAbsent(node, atInit) == null ? AttestationWrite.WRITTEN : AttestationWrite.SUPERSEDED;
    }

    @Override
    public List<NodeStatus> all() {
        throw new UnsupportedOperationException("the operator's view is tested against real etcd");
    }

    @Override
    public NodeStates states() {
        throw new UnsupportedOperationException("the operator's view and the rounds' read are tested against real etcd");
    }
}
