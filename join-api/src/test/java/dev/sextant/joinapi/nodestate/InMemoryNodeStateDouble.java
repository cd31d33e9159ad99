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
    private final Map<String, Revocation> revoked = new ConcurrentHashMap<>();
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
    public Optional<String> endpoint(String node) {
        return Optional.ofNullable(endpoints.get(node));
    }

    @Override
    public Revocation revoke(String node, String ak, String reason, String by) {
        return revoked.computeIfAbsent(ak, a -> new Revocation(node, reason, clock.instant(), by));
    }

    @Override
    public Optional<Revocation> revocation(String ak) {
        return Optional.ofNullable(revoked.get(ak));
    }

    @Override
    public List<NodeStatus> all() {
        throw new UnsupportedOperationException("the operator's view is tested against real etcd");
    }
}
