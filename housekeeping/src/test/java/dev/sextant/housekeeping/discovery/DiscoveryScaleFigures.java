package dev.sextant.housekeeping.discovery;

import org.jgroups.protocols.TP;
import org.jgroups.stack.Protocol;

import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Discovery figures for many members per JVM (scripts/bench-discovery.sh, after the netns figures):
 * for each size and each stack (BaselineStack, then the current one), RUNS
 * runs of: start every member at once, time until every member holds every record; one new record
 * to everywhere; bytes each member's transport sends per second at rest. Arguments: SIZES (e.g.
 * "3,10,32,64"), FAILURE_TIMEOUT_MS (12000), REST_SECONDS (20), RUNS (3), CAP_SECONDS (60, a run
 * that has not converged by then counts as not converged). Figures are printed, not asserted.
 */
public final class DiscoveryScaleFigures {
    public static void main(String[] args) throws Exception {
        Duration failureTimeout = Duration.ofMillis(args.length > 1 ? Long.parseLong(args[1]) : 12_000);
        int rest = args.length > 2 ? Integer.parseInt(args[2]) : 20;
        int runs = args.length > 3 ? Integer.parseInt(args[3]) : 3;
        Duration cap = Duration.ofSeconds(args.length > 4 ? Long.parseLong(args[4]) : 60);
        for (String size : (args.length > 0 ? args[0] : "3,10,32,64").split(",")) {
            int n = Integer.parseInt(size.strip());
            measure("baseline", BaselineStack::build, n, failureTimeout, rest, runs, cap);
            measure("current ", DiscoveryStack::build, n, failureTimeout, rest, runs, cap);
        }
        System.exit(0);
    }

    private static void measure(String label, DiscoveryStack.Factory stack, int n, Duration failureTimeout, int rest,
                                int runs, Duration cap) throws Exception {
        List<Long> converge = new ArrayList<>();
        List<Long> propagate = new ArrayList<>();
        double meanRate = -1;
        double maxRate = -1;
        int converged = 0;
        for (int run = 0; run < runs; run++) {
            List<TP> transports = new CopyOnWriteArrayList<>();
            try (InJvmCluster cluster = new InJvmCluster(n, Math.min(3, n), failureTimeout, counting(stack, transports))) {
                cluster.startAll();
                // From the moment the last member has joined (or founded) a group.
                long took = NetnsCluster.await(cap, cluster::converged);
                if (took < 0) {
                    System.out.printf("  %s %2d members run %d: not converged in %d s:%n%s", label, n, run + 1,
                            cap.toSeconds(), cluster.state());
                    continue;
                }
                converged++;
                converge.add(took);
                EndpointRecord extra = new EndpointRecord("join." + InJvmCluster.DOMAIN, InetAddress.getLoopbackAddress().getHostAddress(), 30090);
                cluster.nodes.get(0).publish(Set.of(InJvmCluster.record(0), extra));
                propagate.add(NetnsCluster.await(Duration.ofSeconds(30),
                        () -> cluster.nodes.stream().allMatch(x -> x.records().contains(extra))));
                if (meanRate < 0) {
                    Thread.sleep(3000);
                    long[] before = sentBytes(transports);
                    Thread.sleep(rest * 1000L);
                    long[] after = sentBytes(transports);
                    double sum = 0;
                    for (int i = 0; i < n; i++) {
                        double rate = (after[i] - before[i]) / (double) rest;
                        sum += rate;
                        maxRate = Math.max(maxRate, rate);
                    }
                    meanRate = sum / n;
                }
            }
        }
        System.out.printf("%s %2d members: converged %d/%d runs (cap %d s); last start -> converged ms %s; "
                        + "new record -> everywhere ms %s; at rest %.0f B/s per member mean, %.0f max "
                        + "(failure timeout %d s)%n",
                label, n, converged, runs, cap.toSeconds(), converge, propagate, meanRate, maxRate,
                failureTimeout.toSeconds());
    }

    /** {@code stack}, its transport counting what it sends; each member's transport is added to {@code transports}. */
    private static DiscoveryStack.Factory counting(DiscoveryStack.Factory stack, List<TP> transports) {
        return (bind, port, seeds, key, timeout) -> {
            List<Protocol> protocols = stack.build(bind, port, seeds, key, timeout);
            TP transport = protocols.stream().filter(TP.class::isInstance).map(TP.class::cast).findFirst().orElseThrow();
            transport.getMessageStats().enable(true);
            transports.add(transport);
            return protocols;
        };
    }

    /** Bytes each member has put on the wire so far (JGroups' message statistics: payload only, no TCP/IP). */
    private static long[] sentBytes(List<TP> transports) {
        return transports.stream().mapToLong(t -> t.getMessageStats().getNumBytesSent()).toArray();
    }
}
