package dev.sextant.joinapi.reattest;

import dev.sextant.attestation.policy.MeasurementsFile;
import dev.sextant.attestation.testkit.FreePorts;
import dev.sextant.housekeeping.discovery.EndpointDiscovery;
import dev.sextant.housekeeping.discovery.GossipSettings;
import dev.sextant.housekeeping.discovery.TestMembers;
import dev.sextant.joinapi.FakeKeyService;
import dev.sextant.joinapi.TestCluster;
import dev.sextant.joinapi.TestClusterStore;
import dev.sextant.joinapi.nodestate.AttestationState;
import dev.sextant.joinapi.nodestate.NodeStateStore;
import dev.sextant.keys.KeyDerivation;
import dev.sextant.keys.member.MemberCredentials;
import dev.sextant.keys.member.MemberKey;
import dev.sextant.keys.member.MemberRole;
import dev.sextant.serviceconfig.JoinServiceConfig;
import io.micronaut.context.ApplicationContext;
import java.io.IOException;
import java.io.StringWriter;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BooleanSupplier;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;

/**
 * Issue 40's figures at process level: N members, each a real swtpm behind a VerifyService on a real port
 * ({@link SwtpmNode}), bound in a real etcd, re-attested by a real join service (its Micronaut context, as
 * {@link ReAttestationServiceTest} starts it) every period; a subset of them also runs real discovery
 * ({@link EndpointDiscovery} on loopback, one control plane and workers). A member extends a checked PCR
 * at a known instant and the bench prints how long until {@code revoked/<ak>} is in etcd and until the
 * member's names left every other discovery member's hosts file, beside the goal (2 periods + 5 s) and the
 * period; then, from rounds with no change in the same run (the baseline), CPU per re-attestation and
 * bytes per node per period.
 *
 * <p>The list's hop from etcd to discovery is the bootstrapper's {@code RevocationListHandOff}'s behaviour
 * (read {@code revocations/list} every 2 s, its default poll; hand a new value to
 * {@code EndpointDiscovery.publishRevocations}), copied here because node-boot is not on join-api's class
 * path; node-boot's {@code RevocationListHandOffTest} runs the class itself.
 *
 * <p>Not part of any test suite (no {@code *Test} name); run by hand, see docs/benchmarks.md:
 * {@code java ... ReAttestationBench [members=64] [discovery-members=16] [period-s=5] [quiet-periods=3] [changes=2]}.
 */
public final class ReAttestationBench {
    private static final String LIST_KEY = "/sextant/v1/revocations/list";
    private static final Duration HAND_OFF_POLL = Duration.ofSeconds(2);
    private static final String DOMAIN = "internal.demo";

    public static void main(String[] args) throws Exception {
        int members = arg(args, 0, 64);
        int discoveryMembers = arg(args, 1, 16);
        Duration period = Duration.ofSeconds(arg(args, 2, 5));
        int quietPeriods = arg(args, 3, 3);
        int changes = arg(args, 4, 2);
        List<AutoCloseable> open = new ArrayList<>();
        try {
            run(members, discoveryMembers, period, quietPeriods, changes, open);
        } finally {
            for (int i = open.size() - 1; i >= 0; i--) {
                try {
                    open.get(i).close();
                } catch (Exception ignored) {
                    // the rest matter more
                }
            }
        }
        System.exit(0);
    }

    private static void run(int wanted, int discoveryWanted, Duration period, int quietPeriods, int changes,
                            List<AutoCloseable> open) throws Exception {
        System.out.printf("ReAttestationBench: %d members, discovery on %d, period %d s, %d quiet periods, %d PCR changes; cores %d, load %s%n",
                wanted, discoveryWanted, period.toSeconds(), quietPeriods, changes, Runtime.getRuntime().availableProcessors(), load());
        TestCluster cluster = new TestCluster();
        open.add(cluster);
        TestClusterStore etcd = new TestClusterStore(1);
        open.add(etcd);
        byte[] salt = Files.readAllBytes(cluster.dir.resolve("measurementSalt"));
        byte[] clusterId = KeyDerivation.clusterId(FakeKeyService.keyFor(KeyDerivation.MEASUREMENT_SECRET), salt);
        // The discovery CA the join service derives through the (fake) KMS: its lists verify in discovery.
        TestMembers ca = new TestMembers(FakeKeyService.keyFor(KeyDerivation.DISCOVERY_CA), clusterId);

        // The members: as many swtpm as fit, each started and provisioned in turn.
        List<SwtpmNode> nodes = new ArrayList<>();
        long started = System.nanoTime();
        for (int i = 0; i < wanted; i++) {
            try {
                SwtpmNode node = SwtpmNode.member(clusterId);
                open.add(node);
                nodes.add(node);
            } catch (Exception e) {
                System.out.printf("swtpm %d of %d did not start (%s): going on with %d%n", i + 1, wanted, e, nodes.size());
                break;
            }
        }
        int n = nodes.size();
        System.out.printf("started %d swtpm members in %.1f s; swtpm RSS %d MiB in all, JVM heap used %d MiB; load %s%n",
                n, seconds(System.nanoTime() - started), Children.rssKib("swtpm") / 1024,
                (Runtime.getRuntime().totalMemory() - Runtime.getRuntime().freeMemory()) >> 20, load());

        Files.write(cluster.measurements, nodes.get(0).imageMeasurements().toJson());
        MeasurementsFile.sign(cluster.measurements, pem(cluster.signingKey.getPrivate()));
        Set<String> cas = new LinkedHashSet<>();
        for (SwtpmNode node : nodes) {
            cas.add(pem(node.ekCa()));
        }
        Files.writeString(cluster.ekCa, String.join("", cas));

        // Member credentials as each join ticket gives them; a relay in front of each node counts its bytes.
        List<MemberCredentials> credentials = new ArrayList<>();
        List<ByteCountingProxy> proxies = new ArrayList<>();
        List<Integer> changing = new ArrayList<>();
        for (int k = 0; k < changes; k++) {
            changing.add(n - 1 - k);
        }
        for (int i = 0; i < n; i++) {
            // Only control planes publish records in discovery (workers publish none), so the members that will
            // change are control planes: their revocation has records to remove (etcd-<name>, their api address).
            MemberCredentials c = ca.member(MemberKey.generate(new java.security.SecureRandom()), name(i),
                    changing.contains(i) ? MemberRole.CONTROL_PLANE : MemberRole.WORKER, java.time.Instant.now(), Duration.ofHours(1));
            credentials.add(c);
            nodes.get(i).withMember(c);
            ByteCountingProxy proxy = new ByteCountingProxy(nodes.get(i).endpoint());
            open.add(proxy);
            proxies.add(proxy);
            etcd.admin().put("/sextant/v1/bindings/node/" + name(i), nodes.get(i).ak());
            etcd.admin().put("/sextant/v1/bindings/machine/" + nodes.get(i).ak() + "/node", name(i));
        }

        // Discovery: cp-0 (whose hand-off publishes the list), the changing members (control planes), workers.
        List<Integer> inDiscovery = new ArrayList<>(changing);
        for (int i = 0; inDiscovery.size() < Math.min(discoveryWanted - 1, n); i++) {
            if (!inDiscovery.contains(i)) {
                inDiscovery.add(i);
            }
        }
        Discovery discovery = new Discovery(Files.createTempDirectory("sextant-reattest-bench-"), ca, inDiscovery, credentials);
        open.add(discovery);
        long formed = System.nanoTime();
        if (!await(Duration.ofSeconds(120), discovery::formed)) {
            throw new IllegalStateException("discovery did not form: " + discovery.missing());
        }
        System.out.printf("discovery: %d members (cp-0, %d changing control planes, %d workers) formed in %.1f s%n", discovery.size(),
                changing.size(), inDiscovery.size() - changing.size(),
                seconds(System.nanoTime() - formed));
        HandOff handOff = new HandOff(etcd, discovery.controlPlane);
        open.add(handOff);

        // Baseline of the idle parts: the JVM with every member, relay and discovery member running, no join service.
        Cpu idle0 = Cpu.now();
        Map<String, Long> idleThreads0 = threadCpuByGroup();
        Thread.sleep(period.toMillis());
        Cpu idle = Cpu.now().minus(idle0);
        Map<String, Long> idleThreads1 = minus(threadCpuByGroup(), idleThreads0);

        Map<String, Object> p = new HashMap<>(etcd.joinService(cluster, "cp-0"));
        p.put(JoinServiceConfig.KUBERNETES_ENABLED, "false");
        p.put("grpc.server.port", "0");
        p.put("micronaut.server.port", "-1");
        p.put("sextant.join.reattest.enabled", "true");
        p.put("sextant.join.reattest.period", period.toSeconds() + "s");
        p.put("sextant.join.reattest.lease", "15s");
        p.put("sextant.join.reattest.holder-name", "cp-0");
        ApplicationContext service = ApplicationContext.builder().properties(p).environments("test").start();
        open.add(service);
        NodeStateStore store = service.getBean(NodeStateStore.class);
        for (int i = 0; i < n; i++) {
            store.recordJoin(name(i), Optional.of(proxies.get(i).endpoint()),
                    Optional.of(TestMembers.keyOf(credentials.get(i))));
        }
        long attestedFrom = System.nanoTime();
        if (!await(Duration.ofSeconds(30 + 4L * period.toSeconds()), () -> attested(store, n) == n)) {
            System.out.printf("only %d of %d attested%n", attested(store, n), n);
        }
        System.out.printf("all %d attested %.1f s after their endpoints were recorded%n", attested(store, n),
                seconds(System.nanoTime() - attestedFrom));

        // Quiet periods, the baseline: every node re-attested once a period, nothing changes.
        Thread.sleep(2 * period.toMillis()); // past the JIT's first rounds
        long answers0 = answers(nodes);
        long nodeCpu0 = nodeCpu(nodes);
        long bytes0 = bytes(proxies);
        long conns0 = connections(proxies);
        Cpu quiet0 = Cpu.now();
        Map<String, Long> threads0 = threadCpuByGroup();
        Map<String, Long> idleThreads = idleThreads1;
        long quietStart = System.nanoTime();
        // Each round's span, its first answer to its n-th (answers counted at the nodes every 5 ms).
        List<Double> spans = new ArrayList<>();
        long deadline = quietStart + quietPeriods * period.toNanos();
        long roundBase = answers0;
        long firstAt = 0;
        while (System.nanoTime() < deadline) {
            long now = answers(nodes);
            if (firstAt == 0 && now > roundBase) {
                firstAt = System.nanoTime();
            }
            if (now >= roundBase + n) {
                spans.add(seconds(System.nanoTime() - firstAt));
                roundBase += n;
                firstAt = 0;
            }
            Thread.sleep(5);
        }
        double quietSeconds = seconds(System.nanoTime() - quietStart);
        Cpu quiet = Cpu.now().minus(quiet0);
        Map<String, Long> threads1 = threadCpuByGroup();
        long calls = answers(nodes) - answers0;
        long nodeCpu = nodeCpu(nodes) - nodeCpu0;
        long bytes = bytes(proxies) - bytes0;
        double periods = quietSeconds / period.toSeconds();
        System.out.printf("quiet: %.1f periods, %d re-attestations (%.2f per node per period), %d connections%n",
                periods, calls, calls / (double) n / periods, connections(proxies) - conns0);
        double jvmPerCall = (quiet.jvmMs - idle.jvmMs * quietSeconds / idle.seconds) / calls;
        System.out.printf("CPU per re-attestation (quiet rounds, the idle JVM's rate taken off: %.1f ms/s): JVM (both ends of the "
                        + "aTLS call, one JVM) %.2f ms; of it the node's VerifyService handlers (GetAttestation + Renew, thread CPU) %.2f ms; "
                        + "swtpm %.2f ms; etcd %.2f ms; cores busy %.2f (idle %.2f)%n",
                idle.jvmMs / idle.seconds, jvmPerCall, nodeCpu / 1e6 / calls,
                (quiet.swtpmMs - idle.swtpmMs * quietSeconds / idle.seconds) / calls,
                (quiet.etcdMs - idle.etcdMs * quietSeconds / idle.seconds) / calls,
                (quiet.jvmMs + quiet.swtpmMs + quiet.etcdMs) / 1000 / quietSeconds,
                (idle.jvmMs + idle.swtpmMs + idle.etcdMs) / 1000 / idle.seconds);
        // Which threads took it: the node servers' aTLS handshakes run on "atls-handshake" workers (the join
        // service's own port takes no calls here), the client's on gRPC's event loops, which the node
        // servers' TLS records share; the idle window's thread CPU (same length scaled) taken off.
        Map<String, Long> used = minus(threads1, threads0);
        StringBuilder groups = new StringBuilder();
        used.entrySet().stream().sorted(Map.Entry.<String, Long>comparingByValue().reversed()).limit(8).forEach(e -> {
            double idleNs = idleThreads.getOrDefault(e.getKey(), 0L) * quietSeconds / idle.seconds;
            groups.append(String.format(" %s %.2f;", e.getKey(), (e.getValue() - idleNs) / 1e6 / calls));
        });
        System.out.printf("thread CPU per re-attestation by thread group (ms, idle rate off):%s%n", groups);
        double nodeHandshake = used.getOrDefault("atls-handshake-", 0L) / 1e6 / calls;
        System.out.printf("so: the node's side (its aTLS handshake work + its VerifyService handlers) %.2f ms + swtpm %.2f ms; "
                        + "the join service's side at most the rest of the JVM's, %.2f ms (it holds the event loops' TLS records of both ends)%n",
                nodeHandshake + nodeCpu / 1e6 / calls, (quiet.swtpmMs - idle.swtpmMs * quietSeconds / idle.seconds) / calls,
                jvmPerCall - nodeHandshake - nodeCpu / 1e6 / calls);
        System.out.printf("round span, first answer -> last of the %d (quiet rounds): %s s%n", n,
                spans.stream().map(x -> String.format("%.2f", x)).toList());
        System.out.printf("bytes per node per period (at the socket, both ways, TLS handshake included): %.0f (%.0f per re-attestation)%n",
                bytes / (double) n / periods, bytes / (double) calls);

        // The changes: one member at a time extends PCR 9 at a known instant.
        double goal = 2 * period.toSeconds() + 5;
        for (int k : changing) {
            SwtpmNode node = nodes.get(k);
            long t0 = System.nanoTime();
            node.extend(9);
            if (!await(Duration.ofSeconds(60), () -> revoked(store, node.ak()))) {
                System.out.printf("%s: not revoked within 60 s%n", name(k));
                continue;
            }
            double toEtcd = seconds(System.nanoTime() - t0);
            boolean gone = await(Duration.ofSeconds(60), () -> discovery.goneEverywhere(name(k)));
            double toDiscovery = seconds(System.nanoTime() - t0);
            System.out.printf("FIGURE %s: PCR 9 extended -> revoked/<ak> in etcd %.2f s; -> its records (lines with its address) gone from all %d other "
                            + "discovery members' hosts files %s; goal %.0f s (2 periods + 5 s), period %d s, hand-off poll %d s%n",
                    name(k), toEtcd, discovery.size() - 1, gone ? String.format("%.2f s", toDiscovery) : "NOT within 60 s",
                    goal, period.toSeconds(), HAND_OFF_POLL.toSeconds());
        }
        System.out.printf("load at the end %s%n", load());
    }

    /** Thread CPU (ns) of the live threads, summed by name without its trailing digits. */
    private static Map<String, Long> threadCpuByGroup() {
        java.lang.management.ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        Map<String, Long> byGroup = new HashMap<>();
        for (java.lang.management.ThreadInfo info : mx.getThreadInfo(mx.getAllThreadIds())) {
            if (info == null) {
                continue;
            }
            long ns = mx.getThreadCpuTime(info.getThreadId());
            if (ns > 0) {
                byGroup.merge(info.getThreadName().replaceAll("[0-9]+$", ""), ns, Long::sum);
            }
        }
        return byGroup;
    }

    private static Map<String, Long> minus(Map<String, Long> a, Map<String, Long> b) {
        Map<String, Long> d = new HashMap<>();
        a.forEach((k, v) -> d.put(k, v - b.getOrDefault(k, 0L)));
        return d;
    }

    private static String name(int i) {
        return "node-" + i;
    }

    private static int attested(NodeStateStore store, int n) {
        int count = 0;
        for (int i = 0; i < n; i++) {
            try {
                if (store.attestation(name(i)).map(r -> r.state() == AttestationState.ATTESTED).orElse(false)) {
                    count++;
                }
            } catch (Exception ignored) {
                // asked again
            }
        }
        return count;
    }

    private static boolean revoked(NodeStateStore store, String ak) {
        try {
            return store.isRevoked(ak);
        } catch (Exception e) {
            return false;
        }
    }

    private static long answers(List<SwtpmNode> nodes) {
        return nodes.stream().mapToLong(SwtpmNode::answers).sum();
    }

    private static long nodeCpu(List<SwtpmNode> nodes) {
        return nodes.stream().mapToLong(SwtpmNode::answerCpuNanos).sum();
    }

    private static long bytes(List<ByteCountingProxy> proxies) {
        return proxies.stream().mapToLong(ByteCountingProxy::bytes).sum();
    }

    private static long connections(List<ByteCountingProxy> proxies) {
        return proxies.stream().mapToLong(ByteCountingProxy::connections).sum();
    }

    private static int arg(String[] args, int i, int otherwise) {
        return args.length > i ? Integer.parseInt(args[i]) : otherwise;
    }

    private static double seconds(long nanos) {
        return nanos / 1e9;
    }

    private static String load() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
        } catch (IOException e) {
            return "?";
        }
    }

    static boolean await(Duration timeout, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline && !condition.getAsBoolean()) {
            Thread.sleep(20);
        }
        return condition.getAsBoolean();
    }

    private static String pem(Object o) throws Exception {
        StringWriter s = new StringWriter();
        try (JcaPEMWriter w = new JcaPEMWriter(s)) {
            w.writeObject(o);
        }
        return s.toString();
    }

    /** CPU of this JVM and of its child processes by name (swtpm, etcd), in ms, at one instant. */
    private record Cpu(double seconds, double jvmMs, double swtpmMs, double etcdMs) {
        static Cpu now() {
            long jvm = ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
            return new Cpu(System.nanoTime() / 1e9, jvm / 1e6, Children.cpuMs("swtpm"), Children.cpuMs("etcd"));
        }

        Cpu minus(Cpu o) {
            return new Cpu(seconds - o.seconds, jvmMs - o.jvmMs, swtpmMs - o.swtpmMs, etcdMs - o.etcdMs);
        }
    }

    /** This JVM's child processes, read from /proc (clock ticks at 100 Hz). */
    private static final class Children {
        static double cpuMs(String command) {
            double ms = 0;
            for (Path stat : stats(command)) {
                try {
                    String s = Files.readString(stat);
                    String[] f = s.substring(s.lastIndexOf(')') + 2).split(" ");
                    ms += (Long.parseLong(f[11]) + Long.parseLong(f[12])) * 10.0; // utime, stime
                } catch (IOException | RuntimeException ignored) {
                    // ended between list and read
                }
            }
            return ms;
        }

        static long rssKib(String command) {
            long kib = 0;
            for (Path stat : stats(command)) {
                try {
                    for (String line : Files.readAllLines(stat.resolveSibling("status"))) {
                        if (line.startsWith("VmRSS:")) {
                            kib += Long.parseLong(line.replaceAll("[^0-9]", ""));
                        }
                    }
                } catch (IOException | RuntimeException ignored) {
                    // ended
                }
            }
            return kib;
        }

        private static List<Path> stats(String command) {
            long self = ProcessHandle.current().pid();
            List<Path> found = new ArrayList<>();
            ProcessHandle.current().descendants().forEach(h -> {
                Path stat = Path.of("/proc", Long.toString(h.pid()), "stat");
                try {
                    String s = Files.readString(stat);
                    String comm = s.substring(s.indexOf('(') + 1, s.lastIndexOf(')'));
                    if (comm.startsWith(command) && h.pid() != self) {
                        found.add(stat);
                    }
                } catch (IOException | RuntimeException ignored) {
                    // ended
                }
            });
            return found;
        }
    }

    /**
     * The bootstrapper's hand-off as it behaves (node-boot {@code RevocationListPoller}): every poll, a value
     * of {@code revocations/list} not seen before goes to the control plane's discovery.
     */
    private static final class HandOff implements AutoCloseable {
        private final Thread thread;
        private volatile boolean stopped;

        HandOff(TestClusterStore etcd, EndpointDiscovery controlPlane) {
            thread = new Thread(() -> {
                String seen = null;
                while (!stopped) {
                    try {
                        Optional<String> value = etcd.admin().get(LIST_KEY);
                        if (value.isPresent() && !value.get().equals(seen)) {
                            seen = value.get();
                            controlPlane.publishRevocations(Base64.getDecoder().decode(seen));
                        }
                        Thread.sleep(HAND_OFF_POLL.toMillis());
                    } catch (InterruptedException e) {
                        return;
                    } catch (RuntimeException e) {
                        // etcd busy: the next poll asks again
                    }
                }
            }, "revocation-hand-off");
            thread.setDaemon(true);
            thread.start();
        }

        @Override
        public void close() {
            stopped = true;
            thread.interrupt();
        }
    }

    /**
     * Discovery members on loopback addresses of their own: cp-0 and the given members (control planes where
     * their credentials say so), each with its hosts file. A member's records are the lines with its address.
     */
    private static final class Discovery implements AutoCloseable {
        final EndpointDiscovery controlPlane;
        private final Map<String, EndpointDiscovery> members = new HashMap<>();
        private final Map<String, Path> hosts = new HashMap<>();
        private final Map<String, String> ipOf = new HashMap<>();
        private final Set<String> controlPlanes = new TreeSet<>();

        Discovery(Path dir, TestMembers ca, List<Integer> nodes, List<MemberCredentials> credentials) throws Exception {
            byte[] groupKey = new byte[32];
            new java.security.SecureRandom().nextBytes(groupKey);
            List<String> names = new ArrayList<>();
            List<MemberCredentials> creds = new ArrayList<>();
            names.add("cp-0");
            creds.add(ca.controlPlane("cp-0"));
            nodes.forEach(i -> {
                names.add(name(i));
                creds.add(credentials.get(i));
            });
            List<Integer> ports = new ArrayList<>();
            for (int m = 0; m < names.size(); m++) {
                String ip = "127.0.1." + (10 + m);
                ipOf.put(names.get(m), ip);
                ports.add(FreePorts.on(InetAddress.getByName(ip)));
            }
            List<String> seeds = List.of(ipOf.get(names.get(0)) + ":" + ports.get(0), ipOf.get(names.get(1)) + ":" + ports.get(1));
            for (int m = 0; m < names.size(); m++) {
                String name = names.get(m);
                Path file = Files.writeString(dir.resolve(name + ".hosts"), "127.0.0.1 localhost\n");
                EndpointDiscovery d = new EndpointDiscovery(new GossipSettings(true, "demo", ipOf.get(name), ports.get(m), seeds,
                        file.toString(), Duration.ofSeconds(4), Duration.ofSeconds(30), 6443, 0, 2379));
                boolean cp = creds.get(m).certified().role() == MemberRole.CONTROL_PLANE;
                if (cp) {
                    controlPlanes.add(name);
                }
                d.start(groupKey, name, cp, creds.get(m));
                members.put(name, d);
                hosts.put(name, file);
            }
            controlPlane = members.get("cp-0");
        }

        int size() {
            return members.size();
        }

        /** Every member's hosts file holds every control plane's records. */
        boolean formed() {
            return missing().isEmpty();
        }

        Map<String, Set<String>> missing() {
            Map<String, Set<String>> missing = new HashMap<>();
            for (Map.Entry<String, Path> h : hosts.entrySet()) {
                String text = read(h.getValue());
                Set<String> absent = new TreeSet<>();
                for (String cp : controlPlanes) {
                    if (!cp.equals(h.getKey()) && !text.contains(ipOf.get(cp) + "\t")) {
                        absent.add(cp);
                    }
                }
                if (!absent.isEmpty()) {
                    missing.put(h.getKey(), absent);
                }
            }
            return missing;
        }

        /** No other member's hosts file holds a record of {@code node} (a line with its address) any more. */
        boolean goneEverywhere(String node) {
            for (Map.Entry<String, Path> h : hosts.entrySet()) {
                if (!h.getKey().equals(node) && read(h.getValue()).contains(ipOf.get(node) + "\t")) {
                    return false;
                }
            }
            return true;
        }

        private static String read(Path file) {
            try {
                return Files.readString(file);
            } catch (IOException e) {
                return "";
            }
        }

        @Override
        public void close() {
            members.values().forEach(EndpointDiscovery::close);
        }
    }
}
