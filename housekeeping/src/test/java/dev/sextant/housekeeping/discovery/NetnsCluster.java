package dev.sextant.housekeeping.discovery;

import org.junit.jupiter.api.Assumptions;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Stream;

/**
 * Discovery nodes as separate JVMs, each in its own network namespace, wired by veth pairs to a
 * bridge that lives in a "switch" namespace of its own (so the host's firewall, which may drop
 * bridged traffic, never sees it). A node is cut off by taking its switch port down. Everything
 * this creates carries a random tag and is removed by {@link #close()}, also after a failure.
 */
final class NetnsCluster implements AutoCloseable {
    static final String DOMAIN = "internal.demo";
    static final int PORT = 7800;

    /** One node process and what it printed. */
    final class Node {
        final int index;
        final String name;
        final String ip;
        final Path hostsFile;
        final Process process;
        final List<String> lines = new CopyOnWriteArrayList<>();
        private final Writer stdin;
        volatile Set<String> records = Set.of();
        volatile long lastChangeMillis;

        Node(int index, String name, String ip, Path hostsFile, Process process) {
            this.index = index;
            this.name = name;
            this.ip = ip;
            this.hostsFile = hostsFile;
            this.process = process;
            this.stdin = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
            Thread reader = new Thread(this::read, "out-" + name);
            reader.setDaemon(true);
            reader.start();
        }

        private void read() {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = in.readLine()) != null; ) {
                    lines.add(line);
                    if (line.startsWith("RECORDS ")) {
                        String[] parts = line.split(" ", 3);
                        Set<String> now = new TreeSet<>();
                        if (parts.length == 3 && !parts[2].isEmpty()) {
                            now.addAll(List.of(parts[2].split(",")));
                        }
                        lastChangeMillis = Long.parseLong(parts[1]);
                        records = now;
                    }
                }
            } catch (IOException ignored) {
                // The process ended.
            }
        }

        void send(String command) throws IOException {
            stdin.write(command + "\n");
            stdin.flush();
        }

        boolean joined() {
            return lines.stream().anyMatch(l -> l.startsWith("JOINED "));
        }

        String switchPort() {
            return "v" + tag + index;
        }

        /** Bytes this node has put on the wire (its switch port's receive counter). */
        long sentBytes() throws IOException, InterruptedException {
            return Long.parseLong(run("ip", "netns", "exec", switchNs, "cat",
                    "/sys/class/net/" + switchPort() + "/statistics/rx_bytes").strip());
        }

        void kill() throws InterruptedException {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }

    final String tag;
    final byte[] groupKey = new byte[32];
    private final String switchNs;
    private final Path dir;
    private final List<String> namespaces = new ArrayList<>();
    final List<Node> nodes = new ArrayList<>();
    private final List<String> seeds = new ArrayList<>();
    private final Duration failureTimeout;
    private boolean closed;

    NetnsCluster(Path dir, int seedCount, Duration failureTimeout) throws IOException, InterruptedException {
        SecureRandom random = new SecureRandom();
        this.tag = HexFormat.of().formatHex(random.generateSeed(2));
        random.nextBytes(groupKey);
        this.dir = dir;
        this.failureTimeout = failureTimeout;
        this.switchNs = "sxg-" + tag + "-sw";
        for (int i = 0; i < seedCount; i++) {
            seeds.add(ip(i) + ":" + PORT);
        }
        // Also on Ctrl-C or a killed test run: namespaces outlive the processes inside them.
        Runtime.getRuntime().addShutdownHook(new Thread(this::close, "netns-cleanup"));
        run("ip", "netns", "add", switchNs);
        namespaces.add(switchNs);
        run("ip", "-n", switchNs, "link", "add", "br0", "type", "bridge");
        run("ip", "-n", switchNs, "link", "set", "br0", "up");
    }

    /**
     * Null when this process may create namespaces; otherwise the missing prerequisite (not root, no
     * {@code ip}). An {@code ip netns} that is installed but fails is not a missing prerequisite: the
     * probe's exception propagates and the test fails with {@code ip}'s own message.
     */
    /**
     * Skips the calling test class, saying why on stderr too, when network namespaces cannot be made
     * here. The reason is on no allow-list, so in CI (CI=true) the skip fails the run.
     */
    static void assumeAvailable() throws IOException, InterruptedException {
        String reason = unavailableReason();
        if (reason != null) {
            System.err.println("SKIPPED: " + reason);
        }
        Assumptions.assumeTrue(reason == null, reason);
    }

    static String unavailableReason() throws IOException, InterruptedException {
        if (!"root".equals(System.getProperty("user.name"))) {
            return "netns tests need root (running as " + System.getProperty("user.name") + ")";
        }
        boolean ipInstalled = Stream.of(System.getenv().getOrDefault("PATH", "").split(":"))
                .anyMatch(dir -> !dir.isEmpty() && Files.isExecutable(Path.of(dir, "ip")));
        if (!ipInstalled) {
            return "'ip' is not on PATH (iproute2: scripts/setup.sh installs it)";
        }
        String probe = "sxg-probe-" + ProcessHandle.current().pid();
        run("ip", "netns", "add", probe);
        run("ip", "netns", "del", probe);
        return null;
    }

    static String ip(int index) {
        return "10.213." + (index / 200) + "." + (index % 200 + 1);
    }

    /** Starts node {@code index} with {@code records} ("name=ip:port,...") and the cluster key, or another key. */
    Node start(int index, String records, byte[] key) throws IOException, InterruptedException {
        String ns = "sxg-" + tag + "-n" + index;
        String port = "v" + tag + index;
        String inner = "e" + tag + index;
        run("ip", "netns", "add", ns);
        namespaces.add(ns);
        run("ip", "link", "add", port, "type", "veth", "peer", "name", inner);
        run("ip", "link", "set", port, "netns", switchNs);
        run("ip", "link", "set", inner, "netns", ns);
        run("ip", "-n", ns, "link", "set", inner, "name", "eth0");
        run("ip", "-n", ns, "addr", "add", ip(index) + "/16", "dev", "eth0");
        run("ip", "-n", ns, "link", "set", "eth0", "up");
        run("ip", "-n", ns, "link", "set", "lo", "up");
        run("ip", "-n", switchNs, "link", "set", port, "master", "br0");
        run("ip", "-n", switchNs, "link", "set", port, "up");

        String name = "node" + index;
        Path hosts = dir.resolve("hosts-" + name);
        Files.writeString(hosts, "127.0.0.1\tlocalhost\n");
        List<String> argv = new ArrayList<>(List.of("ip", "netns", "exec", ns,
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xmx64m", "-Djava.net.preferIPv4Stack=true",
                "-Dlogback.configurationFile=" + logbackFile(),
                "-Dsextant.discovery.stack=" + System.getProperty("sextant.discovery.stack", "current"),
                "-cp", System.getProperty("java.class.path"), GossipNodeProcess.class.getName(),
                name, ip(index), Integer.toString(PORT), String.join(",", seeds), DOMAIN,
                HexFormat.of().formatHex(key), Long.toString(failureTimeout.toMillis()), hosts.toString()));
        if (!records.isEmpty()) {
            argv.add(records);
        }
        Process process = new ProcessBuilder(argv).redirectErrorStream(true).start();
        Node node = new Node(index, name, ip(index), hosts, process);
        nodes.add(node);
        return node;
    }

    private Path logbackFile() throws IOException {
        Path file = dir.resolve("logback-node.xml");
        if (!Files.exists(file)) {
            Files.writeString(file, """
                    <configuration>
                      <appender name="OUT" class="ch.qos.logback.core.ConsoleAppender">
                        <encoder><pattern>%d{HH:mm:ss.SSS} %-5level %logger{24} - %msg%n</pattern></encoder>
                      </appender>
                      <logger name="org.jgroups" level="WARN"/>
                    """ + (Boolean.getBoolean("sextant.discovery.debug") ? """
                      <logger name="org.jgroups.protocols.MERGE3" level="DEBUG"/>
                      <logger name="org.jgroups.protocols.pbcast.GMS" level="DEBUG"/>
                      <logger name="org.jgroups.protocols.FD_SOCK2" level="DEBUG"/>
                      <logger name="org.jgroups.protocols.FD_ALL3" level="DEBUG"/>
                      <logger name="org.jgroups.protocols.VERIFY_SUSPECT2" level="DEBUG"/>
                    """ : "") + """
                      <root level="INFO"><appender-ref ref="OUT"/></root>
                    </configuration>
                    """);
        }
        return file;
    }

    void partition(Node node) throws IOException, InterruptedException {
        run("ip", "-n", switchNs, "link", "set", node.switchPort(), "down");
    }

    void heal(Node node) throws IOException, InterruptedException {
        run("ip", "-n", switchNs, "link", "set", node.switchPort(), "up");
    }

    /** Splits the nodes in two: each side drops every packet from and to the other (iptables in each node's namespace). */
    void split(List<Node> one, List<Node> other) throws IOException, InterruptedException {
        for (Node a : one) {
            for (Node b : other) {
                drop(a, b);
                drop(b, a);
            }
        }
    }

    private void drop(Node at, Node from) throws IOException, InterruptedException {
        String ns = "sxg-" + tag + "-n" + at.index;
        run("ip", "netns", "exec", ns, "iptables", "-A", "INPUT", "-s", from.ip, "-j", "DROP");
        run("ip", "netns", "exec", ns, "iptables", "-A", "OUTPUT", "-d", from.ip, "-j", "DROP");
    }

    /** Undoes {@link #split}: the nodes' namespaces hold no other rules. */
    void unsplit(List<Node> which) throws IOException, InterruptedException {
        for (Node n : which) {
            run("ip", "netns", "exec", "sxg-" + tag + "-n" + n.index, "iptables", "-F");
        }
    }

    /** Waits until {@code condition} holds; returns the milliseconds it took, or -1 on timeout. */
    static long await(Duration timeout, java.util.function.BooleanSupplier condition) throws InterruptedException {
        long start = System.nanoTime();
        long deadline = start + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (condition.getAsBoolean()) {
                return (System.nanoTime() - start) / 1_000_000;
            }
            Thread.sleep(20);
        }
        return condition.getAsBoolean() ? timeout.toMillis() : -1;
    }

    boolean all(Predicate<Node> test, List<Node> which) {
        return which.stream().allMatch(test);
    }

    static String run(String... argv) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(argv).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IOException(String.join(" ", argv) + " failed: " + out.strip());
        }
        return out;
    }

    String output(Node node) {
        return String.join("\n", node.lines);
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (Node node : nodes) {
            node.process.destroyForcibly();
        }
        for (Node node : nodes) {
            try {
                node.process.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        // Deleting a namespace deletes the veth ends inside it, and with them their peers.
        for (int i = namespaces.size() - 1; i >= 0; i--) {
            try {
                run("ip", "netns", "del", namespaces.get(i));
            } catch (IOException | InterruptedException e) {
                System.err.println("cleanup: " + e.getMessage());
            }
        }
    }
}
