package dev.sextant.e2e.mini;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.sextant.localcluster.mini.MiniState;
import dev.sextant.localcluster.qemu.FactoryTpm;
import dev.sextant.localcluster.qemu.HostTools;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * {@code sextant mini up --workers 1} as an operator runs it (bin/sextant, a separate process), its
 * summary's facts checked independently: each node verified by {@code sextant verify} against the
 * image's measurements with PCR 15 computed here from the cluster ID init printed, and the join
 * service's ticket counter read through the forwarded /prometheus. Then {@code mini down} must
 * leave no QEMU or swtpm process, and a second {@code mini up} reuses the image. Prints the time
 * from {@code mini up} to its summary and the peak memory of the CLI, QEMU and swtpm processes.
 */
@Tag("boot")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@DisplayName("sextant mini")
class MiniClusterTest {
    private static final Duration UP_TIMEOUT = Duration.ofMinutes(40);
    private static final Duration SHORT = Duration.ofMinutes(2);
    private static final Pattern CLUSTER_ID = Pattern.compile("cluster ID: ([0-9a-f]{64})");
    private static final Pattern UP_SECONDS = Pattern.compile("mini up: ([0-9.]+) s from start to summary");

    private Path repo;
    /** -Dsextant.image.dir: boot that image as built (--no-build); else mini up builds or reuses out/image. */
    private final String imageDir = System.getProperty("sextant.image.dir", "");
    private Path dir;
    private Path logs;
    private final List<String> figures = new ArrayList<>();

    @BeforeAll
    void hostAndRepo() throws IOException {
        List<String> missing = new ArrayList<>(HostTools.missing());
        missing.addAll(FactoryTpm.missingTools());
        for (Path d = Path.of("").toAbsolutePath(); d != null && repo == null; d = d.getParent()) {
            if (Files.isRegularFile(d.resolve("mkosi/mkosi.conf")) && Files.isExecutable(d.resolve("bin/sextant"))) {
                repo = d;
            }
        }
        if (repo == null) {
            missing.add("no source tree with mkosi/mkosi.conf and bin/sextant above " + Path.of("").toAbsolutePath());
        }
        if (!missing.isEmpty()) {
            System.out.println("SKIP MiniClusterTest: " + missing);
        }
        assumeTrue(missing.isEmpty(), () -> "missing: " + missing);
        dir = repo.resolve("e2e/target/mini-" + ProcessHandle.current().pid());
        logs = Files.createDirectories(repo.resolve("e2e/target/mini-logs"));
    }

    @AfterAll
    void downAndFigures() throws Exception {
        if (dir != null && Files.exists(dir.resolve("mini.json"))) {
            sextant("down-after-all", SHORT, "mini", "down", "--dir", dir.toString());
        }
        figures.forEach(f -> System.out.println("MiniClusterTest: " + f));
    }

    @Test
    @Order(1)
    @DisplayName("up --workers 1 brings up a verified, initialized cluster whose summary holds up to independent checks; down leaves no process")
    void upVerifyDown() throws Exception {
        Run up = up("up-1");
        assertEquals(0, up.exit, "mini up failed; see " + up.log + ":\n" + up.output);
        assertSummaryRow(up.output, "control-plane-0", "control-plane");
        assertSummaryRow(up.output, "worker-0", "worker");
        assertTrue(up.output.contains("Kubernetes: not installed") || up.output.contains("Kubernetes: started"),
                "the summary does not say what became of Kubernetes; see " + up.log);

        MiniState state = MiniState.read(dir.resolve("mini.json")).orElseThrow();
        Matcher id = CLUSTER_ID.matcher(up.output);
        assertTrue(id.find(), "init printed no cluster ID; see " + up.log);
        Path policy = clusterPolicy(HexFormat.of().parseHex(id.group(1)));
        for (MiniState.Node node : state.nodes()) {
            Run verify = sextant("verify-" + node.name(), SHORT, "verify", "--endpoint", "127.0.0.1:" + node.hostPort(7443),
                    "--measurements", policy.toString(), "--ek-ca", dir.resolve("ca/ca-cert.pem").toString());
            assertEquals(0, verify.exit, "sextant verify rejects " + node.name() + " against the image's measurements"
                    + " with this cluster's PCR 15; see " + verify.log + ":\n" + verify.output);
        }
        int metricsPort = state.nodes().stream().filter(n -> n.name().equals("control-plane-0")).findFirst().orElseThrow()
                .hostPort(9091);
        double tickets = joinTickets(metricsPort);
        System.out.println("MiniClusterTest: join service reports sextant_join_tickets_issued_total " + tickets);
        assertTrue(tickets >= 1, "the join service issued no ticket, yet the summary says worker-0 joined");

        Run status = sextant("status", SHORT, "mini", "status", "--dir", dir.toString());
        assertEquals(0, status.exit, "mini status after up; see " + status.log + ":\n" + status.output);

        Run down = sextant("down-1", SHORT, "mini", "down", "--dir", dir.toString());
        assertEquals(0, down.exit, "mini down; see " + down.log);
        assertEquals(List.of(), clusterProcesses(), "processes of the cluster left after mini down");
        assertTrue(Files.exists(dir.resolve("control-plane-0/console.log")), "down removed the console log");
    }

    @Test
    @Order(2)
    @DisplayName("a second up reuses the built image and comes up again")
    void secondUpReusesImage() throws Exception {
        Run up = up("up-2");
        assertEquals(0, up.exit, "second mini up failed; see " + up.log + ":\n" + up.output);
        assertTrue(up.output.contains(imageDir.isBlank() ? "reusing it" : "its signed measurements stay"),
                "the second up did not reuse the image; see " + up.log);
        assertSummaryRow(up.output, "worker-0", "worker");
        Run down = sextant("down-2", SHORT, "mini", "down", "--purge", "--dir", dir.toString());
        assertEquals(0, down.exit, "mini down --purge; see " + down.log);
        assertEquals(List.of(), clusterProcesses(), "processes of the cluster left after mini down");
    }

    private Run up(String name) throws Exception {
        boolean coldImage = !Files.exists(repo.resolve("out/image/.sextant-inputs.sha256"));
        Instant start = Instant.now();
        Run up;
        long[] cliPid = {-1};
        try (PeakRss rss = new PeakRss(pid -> pid == cliPid[0] || isClusterProcess(pid))) {
            List<String> args = new ArrayList<>(List.of("mini", "up", "--workers", "1", "--dir", dir.toString()));
            if (!imageDir.isBlank()) {
                args.addAll(List.of("--no-build", "--image", Path.of(imageDir).toAbsolutePath().toString()));
            }
            up = sextant(name, UP_TIMEOUT, pid -> cliPid[0] = pid, args.toArray(String[]::new));
            Matcher seconds = UP_SECONDS.matcher(up.output);
            String toSummary = seconds.find() ? seconds.group(1) + " s" : "n/a";
            figures.add(String.format("%s: mini up to summary %s (wall %d s; image %s), peak RSS of CLI + QEMU + swtpm %d MiB",
                    name, toSummary, Duration.between(start, Instant.now()).toSeconds(),
                    !imageDir.isBlank() ? "given, not built" : up.output.contains("reusing it") ? "reused"
                            : coldImage ? "built cold" : "built", rss.peakMiB()));
        }
        System.out.println("MiniClusterTest: " + figures.get(figures.size() - 1));
        return up;
    }

    private static void assertSummaryRow(String output, String node, String role) {
        Pattern row = Pattern.compile("(?m)^" + node + "\\s+" + role + "\\s+PCR 4 9 11 12 13 15\\s+yes \\(\\S+\\)\\s+yes");
        assertTrue(row.matcher(output).find(), "no summary row saying " + node + " (" + role + ") is verified, has an"
                + " encrypted state disk and joined:\n" + output);
    }

    /** The image's measurements with PCR 15 = SHA-256(0^32 || SHA-256(cluster ID)), computed here. */
    private Path clusterPolicy(byte[] clusterId) throws Exception {
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        byte[] event = sha.digest(clusterId);
        sha.update(new byte[32]);
        sha.update(event);
        String pcr15 = HexFormat.of().formatHex(sha.digest());
        String image = Files.readString(dir.resolve("measurements.json"));
        String zero15 = "\"15\" : {\n      \"expected\" : \"" + "0".repeat(64) + "\"";
        assertTrue(image.contains(zero15), "the image's measurements do not expect PCR 15 = 0:\n" + image);
        Path policy = logs.resolve("cluster-pcr15.json");
        Files.writeString(policy, image.replace(zero15, "\"15\" : {\n      \"expected\" : \"" + pcr15 + "\""));
        return policy;
    }

    private static double joinTickets(int port) throws Exception {
        HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + port + "/prometheus")).timeout(Duration.ofSeconds(20)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, response.statusCode(), "/prometheus of the join service: " + response.body());
        double total = 0;
        Matcher m = Pattern.compile("(?m)^sextant_join_tickets_issued_total(?:\\{[^}]*})?\\s+([0-9.eE+]+)")
                .matcher(response.body());
        boolean found = false;
        while (m.find()) {
            total += Double.parseDouble(m.group(1));
            found = true;
        }
        assertTrue(found, "no sextant_join_tickets_issued_total in /prometheus:\n" + response.body());
        return total;
    }

    private boolean isClusterProcess(long pid) {
        String cmd = PeakRss.cmdline(pid);
        return (cmd.contains("qemu-system") || cmd.contains("swtpm")) && cmd.contains(dir.toString());
    }

    private List<String> clusterProcesses() throws IOException {
        try (var procs = Files.list(Path.of("/proc"))) {
            return procs.map(p -> p.getFileName().toString()).filter(n -> n.chars().allMatch(Character::isDigit))
                    .mapToLong(Long::parseLong).filter(this::isClusterProcess)
                    .mapToObj(pid -> pid + " " + PeakRss.cmdline(pid)).toList();
        }
    }

    private record Run(int exit, String output, Path log) {
    }

    private Run sextant(String name, Duration timeout, String... args) throws Exception {
        return sextant(name, timeout, pid -> { }, args);
    }

    /** bin/sextant as the operator runs it; SEXTANT_NO_BUILD: the CLI was built by the Maven run this test is part of. */
    private Run sextant(String name, Duration timeout, java.util.function.LongConsumer pid, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(repo.resolve("bin/sextant").toString()));
        command.addAll(List.of(args));
        Path log = logs.resolve(name + ".log");
        ProcessBuilder builder = new ProcessBuilder(command).directory(repo.toFile()).redirectErrorStream(true)
                .redirectOutput(log.toFile());
        builder.environment().put("SEXTANT_NO_BUILD", "1");
        Process process = builder.start();
        pid.accept(process.pid());
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            process.destroy();
            process.waitFor(30, TimeUnit.SECONDS);
            throw new AssertionError("sextant " + String.join(" ", args) + " did not finish within " + timeout.toMinutes()
                    + " min; see " + log);
        }
        return new Run(process.exitValue(), Files.readString(log), log);
    }
}
