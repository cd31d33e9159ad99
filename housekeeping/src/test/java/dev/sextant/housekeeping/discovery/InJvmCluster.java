package dev.sextant.housekeeping.discovery;

import dev.sextant.attestation.testkit.FreePorts;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Many discovery members in one JVM: each its own JChannel on its own port of 127.0.0.1, the first
 * {@code seedCount} of them the seeds (the control planes). Lets 32 or 64 members run on a
 * two-core machine where as many JVMs would not fit. All members are started at once, from as
 * many threads, which is what the 10-node failure needed: simultaneous starts.
 */
final class InJvmCluster implements AutoCloseable {
    static final String DOMAIN = "internal.demo";

    final byte[] groupKey = new byte[32];
    final List<GossipNode> nodes = new ArrayList<>();
    final List<Integer> ports = new ArrayList<>();
    final Set<EndpointRecord> all = new TreeSet<>();
    private final List<InetSocketAddress> seeds = new ArrayList<>();
    private final Duration failureTimeout;
    private final DiscoveryStack.Factory stack;
    private final TestMembers members;

    InJvmCluster(int size, int seedCount, Duration failureTimeout) throws Exception {
        this(size, seedCount, failureTimeout, DiscoveryStack::build);
    }

    InJvmCluster(int size, int seedCount, Duration failureTimeout, DiscoveryStack.Factory stack) throws Exception {
        new SecureRandom().nextBytes(groupKey);
        this.failureTimeout = failureTimeout;
        this.stack = stack;
        this.members = TestMembers.forGroupKey(groupKey);
        for (int port : FreePorts.loopback(size)) {
            ports.add(port);
        }
        for (int i = 0; i < seedCount; i++) {
            seeds.add(new InetSocketAddress(InetAddress.getLoopbackAddress(), ports.get(i)));
        }
    }

    /** Member i's own record: its name and the address it sends from, as the record verifier demands. */
    static EndpointRecord record(int i) {
        return new EndpointRecord("etcd-m" + i + "." + DOMAIN, InetAddress.getLoopbackAddress().getHostAddress(), 2379);
    }

    /** Starts every member at once; returns when each has joined (or founded) a group. */
    void startAll() throws Exception {
        int n = ports.size();
        ExecutorService pool = Executors.newFixedThreadPool(n);
        try {
            List<CompletableFuture<GossipNode>> started = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                int index = i;
                all.add(record(i));
                started.add(CompletableFuture.supplyAsync(() -> {
                    try {
                        GossipNode node = GossipNode.start(config(index), groupKey, members.controlPlane("m" + index), r -> { }, stack);
                        node.publish(Set.of(record(index)));
                        return node;
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                }, pool));
            }
            for (CompletableFuture<GossipNode> f : started) {
                nodes.add(f.join());
            }
        } finally {
            pool.shutdown();
        }
    }

    GossipNode.Config config(int i) {
        return new GossipNode.Config("m" + i, InetAddress.getLoopbackAddress(), ports.get(i), seeds, DOMAIN,
                failureTimeout, Duration.ofSeconds(30));
    }

    boolean converged() {
        return nodes.stream().allMatch(x -> x.records().equals(all));
    }

    String state() {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < nodes.size(); i++) {
            SortedSet<EndpointRecord> r = nodes.get(i).records();
            out.append(String.format("  m%d: %d members, %d records, view %s%n", i, nodes.get(i).members(), r.size(),
                    nodes.get(i).viewId()));
        }
        return out.toString();
    }

    /** Starts the next member (one at a time, in order) and publishes its record; returns once it is a member. */
    GossipNode startNext() throws Exception {
        int i = nodes.size();
        GossipNode node = GossipNode.start(config(i), groupKey, members.controlPlane("m" + i), r -> { }, stack);
        node.publish(Set.of(record(i)));
        all.add(record(i));
        nodes.add(node);
        return node;
    }

    @Override
    public void close() {
        nodes.parallelStream().forEach(GossipNode::close);
    }
}
