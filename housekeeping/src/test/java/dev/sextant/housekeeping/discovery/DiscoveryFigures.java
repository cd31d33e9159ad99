package dev.sextant.housekeeping.discovery;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * Prints the discovery figures (scripts/bench-discovery.sh): for each node count, the time from
 * launching every node JVM (each in its own network namespace) until every node holds every
 * record, the time one new record then takes to reach all, and the bytes each node sends per
 * second at rest. Arguments: COUNTS (e.g. "3,10"), FAILURE_TIMEOUT_MS (default 12000, the
 * production default), REST_SECONDS (default 20). Figures are printed, not asserted.
 */
public final class DiscoveryFigures {
    public static void main(String[] args) throws Exception {
        String reason = NetnsCluster.unavailableReason();
        if (reason != null) {
            System.out.println("SKIPPED: " + reason);
            return;
        }
        Duration failureTimeout = Duration.ofMillis(args.length > 1 ? Long.parseLong(args[1]) : 12_000);
        int rest = args.length > 2 ? Integer.parseInt(args[2]) : 20;
        for (String count : (args.length > 0 ? args[0] : "3,10").split(",")) {
            measure(Integer.parseInt(count.strip()), failureTimeout, rest);
        }
    }

    private static void measure(int n, Duration failureTimeout, int restSeconds) throws Exception {
        Path dir = Files.createTempDirectory("sextant-discovery-bench-");
        try (NetnsCluster cluster = new NetnsCluster(dir, Math.min(3, n), failureTimeout)) {
            Set<String> all = new TreeSet<>();
            long start = System.nanoTime();
            for (int i = 0; i < n; i++) {
                String ip = NetnsCluster.ip(i);
                String records = "node" + i + ".datastore.internal.demo=" + ip + ":2379" + (i < 3 ? ",api.internal.demo=" + ip + ":6443" : "");
                all.addAll(List.of(records.split(",")));
                cluster.start(i, records, cluster.groupKey);
            }
            List<NetnsCluster.Node> nodes = List.copyOf(cluster.nodes);
            long converged = NetnsCluster.await(Duration.ofMinutes(5), () -> nodes.stream().allMatch(x -> x.records.equals(all)));
            if (converged < 0) {
                System.out.printf("%d nodes: did not converge in 5 min (every node's output under %s)%n", n, dir);
                for (NetnsCluster.Node x : nodes) {
                    Files.write(dir.resolve(x.name + ".log"), x.lines);
                }
                for (NetnsCluster.Node x : nodes) {
                    String view = x.lines.stream().filter(l -> l.contains("Discovery: view")).reduce((p, q) -> q).orElse("-");
                    System.out.printf("  %s: %d records, %s%n", x.name, x.records.size(), view);
                    x.lines.stream().filter(l -> l.contains("WARN") || l.contains("ERROR")).limit(5)
                            .forEach(l -> System.out.println("    " + l));
                }
                return;
            }
            long total = (System.nanoTime() - start) / 1_000_000;
            if (Boolean.getBoolean("sextant.discovery.debug")) {
                for (NetnsCluster.Node x : nodes) {
                    Files.write(dir.resolve(x.name + ".log"), x.lines);
                }
                System.out.println("every node's output under " + dir);
            }
            long lastJvmUp = nodes.stream().mapToLong(x -> x.lines.stream().filter(l -> l.startsWith("RECORDS ")).findFirst()
                    .map(l -> Long.parseLong(l.split(" ")[1])).orElse(0L)).max().orElse(0);
            long lastConverged = nodes.stream().mapToLong(x -> x.lastChangeMillis).max().orElse(0);
            String extra = "join.internal.demo=" + NetnsCluster.ip(0) + ":30090";
            nodes.get(0).send("publish node0.datastore.internal.demo=" + NetnsCluster.ip(0) + ":2379,api.internal.demo="
                    + NetnsCluster.ip(0) + ":6443," + extra);
            long propagated = NetnsCluster.await(Duration.ofSeconds(30), () -> nodes.stream().allMatch(x -> x.records.contains(extra)));

            Thread.sleep(3000);
            List<Long> before = new ArrayList<>();
            for (NetnsCluster.Node node : nodes) {
                before.add(node.sentBytes());
            }
            Thread.sleep(restSeconds * 1000L);
            List<Double> rates = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                rates.add((nodes.get(i).sentBytes() - before.get(i)) / (double) restSeconds);
            }
            double mean = rates.stream().mapToDouble(Double::doubleValue).average().orElse(0);
            double max = rates.stream().mapToDouble(Double::doubleValue).max().orElse(0);
            System.out.printf("%d nodes (failure timeout %d s): launch to all records everywhere %d ms "
                            + "(last node's first record to convergence %d ms); one new record reaches all in %d ms; "
                            + "at rest each node sends %.0f bytes/s on average, %.0f at most%n",
                    n, failureTimeout.toSeconds(), total, lastConverged - lastJvmUp, propagated, mean, max);
        }
    }
}
