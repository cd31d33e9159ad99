package dev.sextant.cli.attacks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sextant.attestation.Variant;
import dev.sextant.attestation.policy.ExpectedValue;
import dev.sextant.attestation.policy.Measurements;
import dev.sextant.attestation.testkit.SoftwareTpmAttester;
import dev.sextant.attestation.testkit.SoftwareTpmOptions;
import dev.sextant.attestation.testkit.TestPki;
import dev.sextant.cli.Main;
import dev.sextant.operatorfiles.MasterSecretFile;
import dev.sextant.operatorfiles.ClusterRecordFile;
import dev.sextant.cli.recover.NodeStandIn;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.TreeMap;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Attacks on the operator's {@code sextant recover}: whoever answers on the recovery port may be
 * hostile, and the one thing it wants is a disk key. Each row: the attack, and the refusal.
 */
@DisplayName("sextant recover under attack")
class RecoverAttacksTest {
    private static final String UUID = "5f1c0e2a-0000-4000-8000-000000000001";
    private final TestPki ekCa = new TestPki("sextant-test-ek-ca");
    private final SoftwareTpmAttester genuine = new SoftwareTpmAttester(ekCa, SoftwareTpmOptions.defaults());
    @TempDir
    Path dir;

    private record Run(int exit, String out, String err) {
    }

    private Run recover(NodeStandIn node, Measurements measurements) throws Exception {
        MasterSecretFile.loadOrCreate(dir.resolve("master.json"));
        Path policy = Files.write(dir.resolve("measurements.json"), measurements.toJson());
        Path ekCa = Files.writeString(dir.resolve("ek-ca.pem"), "-----BEGIN CERTIFICATE-----\n"
                + Base64.getMimeEncoder().encodeToString(genuine.anchors().get(0).getEncoded())
                + "\n-----END CERTIFICATE-----\n");
        // init recorded the genuine machine as the disk's holder
        Path record = dir.resolve("cluster.json");
        ClusterRecordFile.record(record, "00", new ClusterRecordFile.Machine(HexFormat.of().formatHex(genuine.akName()), UUID));
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exit = Main.commandLine().setOut(new PrintWriter(out, true)).setErr(new PrintWriter(err, true)).execute(
                "recover", "--endpoint", "127.0.0.1:" + node.port(), "--master-secret", dir.resolve("master.json").toString(),
                "--measurements", policy.toString(), "--ek-ca", ekCa.toString(), "--cluster-record", record.toString(),
                "--timeout", "5");
        return new Run(exit, out.toString(), err.toString());
    }

    private static NodeStandIn standIn(SoftwareTpmAttester attester, String diskUuid) throws Exception {
        NodeStandIn node = new NodeStandIn(attester, 0);
        node.diskUuid = diskUuid;
        node.diskKey = new byte[32];
        return node;
    }

    @Test
    @DisplayName("a node booted from another image asks for the disk key: REJECTED (PCR_MISMATCH) in the handshake, not even Status is sent")
    void otherImage() throws Exception {
        byte[] other = new byte[32];
        Arrays.fill(other, (byte) 0x11);
        try (NodeStandIn node = standIn(genuine, UUID)) {
            TreeMap<Integer, ExpectedValue> values = new TreeMap<>(genuine.measurements().measurements());
            values.put(16, new ExpectedValue(other, false));
            Run run = recover(node, new Measurements(Variant.QEMU_VTPM, values));
            assertEquals(1, run.exit(), run.out() + run.err());
            assertTrue(run.out().startsWith("REJECTED: PCR_MISMATCH: PCR 16 (sha256) is "), run.out());
            assertEquals(List.of(), node.calls);
        }
    }

    @Test
    @DisplayName("a node whose PCR 15 is marked already (locked to some cluster, then asking for this disk) while the measurements file names that value: REJECTED (PCR_MISMATCH) on PCR 15, which must be zero, nothing sent")
    void lockedNode() throws Exception {
        byte[] marked = new byte[32];
        Arrays.fill(marked, (byte) 0x15);
        SoftwareTpmAttester locked = new SoftwareTpmAttester(ekCa, SoftwareTpmOptions.defaults().withPcr(15, marked));
        try (NodeStandIn node = standIn(locked, UUID)) {
            Run run = recover(node, locked.measurements());
            assertEquals(1, run.exit(), run.out() + run.err());
            assertTrue(run.out().startsWith("REJECTED: PCR_MISMATCH: PCR 15 (sha256) is 1515151515151515… rather than 0000000000000000…"),
                    run.out());
            assertEquals(List.of(), node.calls);
        }
    }

    @Test
    @DisplayName("the host attaches the waiting disk to another machine booted from the genuine image (its TPM of the EK CA, another AK): refused, the cluster record names another AK for the disk, no key derived or sent")
    void diskOnAnotherMachine() throws Exception {
        SoftwareTpmAttester otherMachine = new SoftwareTpmAttester(ekCa, SoftwareTpmOptions.defaults());
        try (NodeStandIn node = standIn(otherMachine, UUID)) {
            Run run = recover(node, otherMachine.measurements());
            assertEquals(1, run.exit(), run.out() + run.err());
            assertTrue(run.out().contains("recovery refused: disk " + UUID + " belongs to AK "
                    + HexFormat.of().formatHex(genuine.akName()) + " in the cluster record"), run.out());
            assertEquals(List.of("Status"), node.calls);
            assertEquals(List.of(), node.keysReceived, "no key was sent");
        }
    }

    @Test
    @DisplayName("a genuine machine asking for the key of a disk the cluster record does not know: refused, no key derived or sent")
    void unrecordedDisk() throws Exception {
        try (NodeStandIn node = standIn(genuine, "5f1c0e2a-0000-4000-8000-0000000000ff")) {
            Run run = recover(node, genuine.measurements());
            assertEquals(1, run.exit(), run.out() + run.err());
            assertTrue(run.out().contains("recovery refused: the cluster record knows no machine for disk"), run.out());
            assertEquals(List.of(), node.keysReceived, "no key was sent");
        }
    }

    @Test
    @DisplayName("an emulated TPM whose AK chains to a CA of the attacker's asks for the disk key: REJECTED (UNTRUSTED_AK) in the handshake, nothing sent")
    void foreignTpm() throws Exception {
        SoftwareTpmAttester forged = new SoftwareTpmAttester(new TestPki("attacker's EK CA"), SoftwareTpmOptions.defaults());
        try (NodeStandIn node = standIn(forged, UUID)) {
            Run run = recover(node, forged.measurements());
            assertEquals(1, run.exit(), run.out() + run.err());
            assertTrue(run.out().startsWith("REJECTED: UNTRUSTED_AK: the EK certificate does not chain to a configured EK CA"),
                    run.out());
            assertEquals(List.of(), node.calls);
        }
    }

    @Test
    @DisplayName("a node names a 'disk UUID' that is none (to get a key for another id): refused, no key derived or sent")
    void notADiskUuid() throws Exception {
        try (NodeStandIn node = standIn(genuine, "clusterID")) {
            Run run = recover(node, genuine.measurements());
            assertEquals(1, run.exit(), run.out() + run.err());
            assertTrue(run.out().contains("recovery refused: the node reported a disk UUID that is none (\"clusterID\")"), run.out());
            assertEquals(List.of("Status"), node.calls);
            assertEquals(List.of(), node.keysReceived, "no key was sent");
        }
    }

    @Test
    @DisplayName("a node whose disk does not wait (already open) asks again: refused as not waiting, no key is sent")
    void notWaiting() throws Exception {
        try (NodeStandIn node = standIn(genuine, UUID)) {
            node.waiting = false;
            Run run = recover(node, genuine.measurements());
            assertEquals(1, run.exit(), run.out() + run.err());
            assertTrue(run.out().contains("the node's state disk " + UUID + " does not wait for a key"), run.out());
            assertEquals(List.of("Status"), node.calls);
            assertEquals(List.of(), node.keysReceived, "no key was sent");
        }
    }
}
