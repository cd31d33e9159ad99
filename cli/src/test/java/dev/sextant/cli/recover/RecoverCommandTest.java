package dev.sextant.cli.recover;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sextant.attestation.Variant;
import dev.sextant.attestation.policy.ExpectedValue;
import dev.sextant.attestation.policy.Measurements;
import dev.sextant.attestation.testkit.SoftwareTpmAttester;
import dev.sextant.cli.Main;
import dev.sextant.operatorfiles.ClusterRecordFile;
import dev.sextant.operatorfiles.MasterSecretFile;
import dev.sextant.keys.KeyDerivation;
import dev.sextant.localcluster.qemu.FreePort;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** `sextant recover` against a RecoveryService stand-in on loopback, served over aTLS by a software TPM. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@DisplayName("sextant recover")
class RecoverCommandTest {
    static final String UUID = "5f1c0e2a-0000-4000-8000-000000000001";

    private final SoftwareTpmAttester attester = new SoftwareTpmAttester();
    private NodeStandIn node;
    @TempDir
    Path dir;
    private MasterSecretFile master;
    /** What the command under test printed so far. */
    private StringWriter output;

    record Run(int exit, String out, String err) {
    }

    @BeforeAll
    void startNode() throws Exception {
        node = new NodeStandIn(attester, 0);
    }

    @AfterAll
    void stopNode() {
        node.close();
    }

    @BeforeEach
    void freshDisk() throws Exception {
        master = MasterSecretFile.loadOrCreate(dir.resolve("master.json"));
        node.waiting = true;
        node.diskUuid = UUID;
        node.diskKey = expectedKey(master, UUID);
        node.calls.clear();
        node.keysReceived.clear();
        output = new StringWriter();
    }

    /** The key as the KMS derives it (HKDF-SHA256 extract and expand), computed here independently of the CLI. */
    static byte[] expectedKey(MasterSecretFile master, String uuid) {
        return KeyDerivation.hkdfSha256(master.key(), master.salt(), ("key-" + uuid).getBytes(StandardCharsets.UTF_8), 32);
    }

    Run recover(int port, Measurements measurements, String... extra) throws Exception {
        Path policy = dir.resolve("measurements.json");
        Files.write(policy, measurements.toJson());
        Path ekCa = dir.resolve("ek-ca.pem");
        Files.writeString(ekCa, "-----BEGIN CERTIFICATE-----\n"
                + Base64.getMimeEncoder().encodeToString(attester.anchors().get(0).getEncoded())
                + "\n-----END CERTIFICATE-----\n");
        StringWriter out = output;
        StringWriter err = new StringWriter();
        CommandLine cli = Main.commandLine().setOut(new PrintWriter(out, true)).setErr(new PrintWriter(err, true));
        List<String> args = new java.util.ArrayList<>(List.of("recover", "--endpoint", "127.0.0.1:" + port,
                "--master-secret", dir.resolve("master.json").toString(), "--measurements", policy.toString(),
                "--ek-ca", ekCa.toString()));
        if (!List.of(extra).contains("--cluster-record") && !List.of(extra).contains("--insecure-send-to-unrecorded-machine")) {
            // What init recorded: the stand-in's AK holds the disk.
            Path record = dir.resolve("cluster.json");
            ClusterRecordFile.record(record, "00", new ClusterRecordFile.Machine(HexFormat.of().formatHex(attester.akName()), UUID));
            args.addAll(List.of("--cluster-record", record.toString()));
        }
        args.addAll(List.of(extra));
        int exit = cli.execute(args.toArray(String[]::new));
        return new Run(exit, out.toString(), err.toString());
    }

    Run recover(String... extra) throws Exception {
        return recover(node.port(), attester.measurements(), extra);
    }

    /** Measurements the stand-in does not meet: PCR 16 expected to be all 0x11. */
    static Measurements otherMeasurements() {
        byte[] expected = new byte[32];
        java.util.Arrays.fill(expected, (byte) 0x11);
        // A measurements file must cover PCR 4, 9, 11, 12, 13 and 15 (zero here, which the stand-in does not meet either).
        TreeMap<Integer, ExpectedValue> values = new TreeMap<>(Map.of(16, new ExpectedValue(expected, false)));
        for (int pcr : new int[] {4, 9, 11, 12, 13, 15}) {
            values.put(pcr, new ExpectedValue(new byte[32], false));
        }
        return new Measurements(Variant.QEMU_VTPM, values);
    }

    @Test
    @DisplayName("verifies the node, sends the key of the disk it waits for (never the master secret), exits 0 when the disk is open")
    void opensTheDisk() throws Exception {
        Run run = recover();
        assertEquals(0, run.exit(), run.out() + run.err());
        assertEquals(List.of("Status", "Recover"), node.calls);
        assertArrayEquals(expectedKey(master, UUID), node.keysReceived.get(0));
        assertTrue(run.out().contains("its state disk " + UUID + " waits for its key: sending it"), run.out());
        assertTrue(run.out().contains("state disk " + UUID + " is open; the cluster's state on it dates from 2026-11-24T03:14:37Z"),
                run.out());
    }

    @Test
    @DisplayName("without a cluster record: an error naming --cluster-record and the insecure option, found before any connection (exit 2)")
    void noClusterRecord() throws Exception {
        Run run = recover("--cluster-record", dir.resolve("absent.json").toString());
        assertEquals(2, run.exit(), run.out() + run.err());
        assertTrue(run.err().contains("no cluster record at " + dir.resolve("absent.json")), run.err());
        assertTrue(run.err().contains("--insecure-send-to-unrecorded-machine"), run.err());
        assertEquals(List.of(), node.calls);
    }

    @Test
    @DisplayName("--insecure-send-to-unrecorded-machine sends the key to a machine that verifies without any record, warning that it does")
    void insecureAnyMachine() throws Exception {
        Run run = recover("--insecure-send-to-unrecorded-machine");
        assertEquals(0, run.exit(), run.out() + run.err());
        assertTrue(run.err().contains("INSECURE (--insecure-send-to-unrecorded-machine): sending the key of disk " + UUID), run.err());
        assertArrayEquals(expectedKey(master, UUID), node.keysReceived.get(0));
    }

    @Test
    @DisplayName("a node that does not verify is sent nothing: REJECTED with the reason, exit 1, no request reached it")
    void rejectedNodeGetsNothing() throws Exception {
        Run run = recover(node.port(), otherMeasurements());
        assertEquals(1, run.exit(), run.out() + run.err());
        assertTrue(run.out().startsWith("REJECTED: "), run.out());
        assertEquals(List.of(), node.calls, "the node received a request although it did not verify");
    }

    @Test
    @DisplayName("a key the node refuses: 'recovery refused' with the node's words, exit 1")
    void refusedKey() throws Exception {
        node.diskKey = new byte[32];
        Run run = recover();
        assertEquals(1, run.exit(), run.out() + run.err());
        assertTrue(run.out().contains("recovery refused: the node refused the request (permission denied): the key does not"
                + " open disk " + UUID), run.out());
    }

    @Test
    @DisplayName("a node whose disk does not wait for a key says so, is sent no key, exit 1")
    void notWaiting() throws Exception {
        node.waiting = false;
        Run run = recover();
        assertEquals(1, run.exit(), run.out() + run.err());
        assertTrue(run.out().contains("state disk " + UUID + " does not wait for a key"), run.out());
        assertEquals(List.of("Status"), node.calls);
    }

    @Test
    @DisplayName("retries while nothing listens yet, and recovers the node once it is up")
    void retriesUntilTheNodeAnswers() throws Exception {
        int port = FreePort.pick();
        var run = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
            try {
                return recover(port, attester.measurements(), "--timeout", "120");
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        // The node comes up only after the command said it is waiting for it.
        for (int i = 0; i < 600 && !output.toString().contains("waiting for 127.0.0.1:" + port + " ("); i++) {
            Thread.sleep(100);
        }
        assertTrue(output.toString().contains("nothing listens on 127.0.0.1:" + port), output.toString());
        NodeStandIn late = new NodeStandIn(attester, port);
        late.diskUuid = UUID;
        late.diskKey = expectedKey(master, UUID);
        try (late) {
            Run result = run.get(2, java.util.concurrent.TimeUnit.MINUTES);
            assertEquals(0, result.exit(), result.out() + result.err());
            assertEquals(List.of("Status", "Recover"), late.calls);
        }
    }

    @Test
    @DisplayName("gives up after --timeout when nothing answers: exit 2, naming the endpoint")
    void givesUp() throws Exception {
        int port = FreePort.pick();
        Run run = recover(port, attester.measurements(), "--timeout", "2");
        assertEquals(2, run.exit(), run.out() + run.err());
        assertTrue(run.err().contains("sextant recover: gave up after 2 s: nothing listens on 127.0.0.1:" + port), run.err());
    }

    @Test
    @DisplayName("a missing master secret file is an error naming the option (exit 2), found before any connection")
    void missingMasterSecret() throws Exception {
        Files.delete(dir.resolve("master.json"));
        Run run = recover();
        assertEquals(2, run.exit(), run.out() + run.err());
        assertTrue(run.err().contains("--master-secret " + dir.resolve("master.json") + ": no such file"), run.err());
        assertEquals(List.of(), node.calls);
    }
}
