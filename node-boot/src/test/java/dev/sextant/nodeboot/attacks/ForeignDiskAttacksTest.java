package dev.sextant.nodeboot.attacks;

import dev.sextant.attestation.Purpose;
import dev.sextant.attestation.testkit.SoftwareTpmAttester;
import dev.sextant.attestation.testkit.SoftwareTpmOptions;
import dev.sextant.attestation.testkit.TestPki;
import dev.sextant.attestation.tpmstructures.TpmAlg;
import dev.sextant.attestation.verify.AttestationRejected;
import dev.sextant.attestation.verify.AttestationVerifier;
import dev.sextant.attestation.verify.Reason;
import dev.sextant.diskcrypt.FakeLuks;
import dev.sextant.nodeboot.bringup.BootstrapStatus;
import dev.sextant.nodeboot.bringup.FakeKubernetes;
import dev.sextant.nodeboot.bringup.NodeState;
import dev.sextant.nodeboot.bringup.TestNode;
import dev.sextant.nodeboot.bringup.Via;
import dev.sextant.nodeboot.jointrust.JoinServiceTrust;
import dev.sextant.nodeboot.jointrust.JoinServiceTrustSettings;
import dev.sextant.nodeboot.kubernetes.DriverResult;
import dev.sextant.nodeboot.rememberdisk.Recall;
import dev.sextant.nodeboot.rememberdisk.RememberedDisk;
import dev.sextant.nodeboot.rememberdisk.RememberedDiskSettings;
import dev.sextant.nodeboot.rememberdisk.TpmDiskMemory;
import dev.sextant.nodeboot.rememberdisk.WritePolicy;
import dev.sextant.nodeboot.start.UnlockPlan;
import dev.sextant.nodeboot.start.UnlockPlanner;
import dev.sextant.nodeboot.unlock.DiskUnlocker;
import dev.sextant.nodeboot.unlock.UnlockRefused;
import dev.sextant.tpm.NvIndices;
import dev.sextant.tpm.command.NvPublic;
import dev.sextant.tpm.command.TpmClient;
import dev.sextant.tpmmanufacturer.testkit.Swtpm;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A host facing a rebooting node: it attaches disks of its own, sets the node's settings, owns the
 * TPM's owner hierarchy (any code it boots on the machine does), and runs join services of its
 * own clusters. swtpm is the node's TPM; its PCRs 4 and 11 stand for the image firmware and stub
 * measured.
 */
@DisplayName("Attacks on a rebooting node's state disk")
class ForeignDiskAttacksTest {
    private static final String GENUINE_IMAGE = "the genuine image";
    private static final String HOST_UUID = "0badd15c-0000-4000-8000-000000000001";
    private static final byte[] CLUSTER = bytes("the operator's cluster ID");
    private static final byte[] GENUINE_KEY = sha256(bytes("HKDF(master secret, disk UUID)"));
    private static final byte[] HOST_KEY = sha256(bytes("the host's own key"));
    private static final int INDEX = NvIndices.REMEMBERED_DISK;

    @TempDir
    Path dir;
    private Swtpm swtpm;

    @BeforeEach
    void boot() throws Exception {
        Swtpm.assumeAvailable();
        swtpm = Swtpm.start();
        bootImage(GENUINE_IMAGE);
    }

    @AfterEach
    void stop() throws Exception {
        if (swtpm != null) {
            swtpm.close();
        }
    }

    @Test
    @DisplayName("a disk the host formatted, opened by the host's recovery key, stays locked: the TPM does not remember it, and the log names both disks")
    void foreignDiskStaysLocked() throws Exception {
        memory().remember(FakeLuks.UUID, CLUSTER, GENUINE_KEY, true);
        UnlockPlan plan = planner(() -> true).plan(HOST_UUID);
        UnlockPlan.StayLocked locked = assertInstanceOf(UnlockPlan.StayLocked.class, plan);
        assertTrue(locked.reason().contains(HOST_UUID) && locked.reason().contains(FakeLuks.UUID), locked.reason());
        assertFalse(plan.serveRecovery(), "no recovery endpoint for a disk the TPM does not remember");
    }

    @Test
    @DisplayName("a disk the host formatted under the remembered UUID, with node state naming the right cluster, is refused the host's recovery key before any try: not the key the TPM remembers")
    void sameUuidHostKeyRefused() throws Exception {
        TestNode node = hostFormattedDisk();
        try {
            memory().remember(FakeLuks.UUID, CLUSTER, GENUINE_KEY, true);
            UnlockPlan.Remembered plan = assertInstanceOf(UnlockPlan.Remembered.class, planner(() -> false).plan(FakeLuks.UUID));
            DiskUnlocker unlocker = new DiskUnlocker(node.disk, node.stateFile);
            unlocker.startWaiting(FakeLuks.UUID, plan.disk());
            UnlockRefused refused = assertThrows(UnlockRefused.class,
                    () -> unlocker.open(FakeLuks.UUID, HOST_KEY, Via.RECOVERY));
            assertEquals(UnlockRefused.Kind.WRONG_KEY, refused.kind(), refused.getMessage());
            assertFalse(node.luks.mapped(), "the host's disk is never opened");
            assertFalse(unlocker.unlocked().isDone());
        } finally {
            node.close();
        }
    }

    @Test
    @DisplayName("the host's control-plane setting does not turn recovery on for a worker: the role the TPM recorded decides")
    void hostSettingDoesNotServeRecovery() throws Exception {
        memory().remember(FakeLuks.UUID, CLUSTER, GENUINE_KEY, false);
        UnlockPlan plan = planner(() -> true).plan(FakeLuks.UUID);
        assertInstanceOf(UnlockPlan.Remembered.class, plan);
        assertFalse(plan.serveRecovery());
    }

    @Test
    @DisplayName("a host that redefines the NV index with its own PCR policy (met by its own image) and records its disk is detected: no image this one knows wrote it")
    void redefinedUnderTheHostsPolicy() throws Exception {
        memory().remember(FakeLuks.UUID, CLUSTER, GENUINE_KEY, true);
        reboot("the host's own image");
        TpmClient tpm = swtpm.client();
        byte[] hostWriter = WritePolicy.writerBeforeLock(tpm.pcr().read(TpmAlg.SHA256, WritePolicy.PCRS));
        byte[] record = RememberedDisk.of(HOST_UUID, CLUSTER, HOST_KEY, true, hostWriter).encode();
        tpm.nv().undefineSpace(INDEX);
        tpm.nv().defineSpace(INDEX, genuineAttributes(), WritePolicy.authPolicy(hostWriter), record.length);
        int session = tpm.policy().startPolicySession();
        tpm.policy().pcr(session, WritePolicy.PCRS, hostWriter);
        tpm.nv().writeUnderPolicy(INDEX, record, session);

        reboot(GENUINE_IMAGE);
        assertDetected(memory().recall(), "written under PCR values no image this one knows");
    }

    @Test
    @DisplayName("a host that redefines the NV index with a password it can write (no policy), copying the genuine writer digest, is detected by the index's attributes")
    void redefinedWithPasswordWrite() throws Exception {
        memory().remember(FakeLuks.UUID, CLUSTER, GENUINE_KEY, true);
        RememberedDisk genuine = assertInstanceOf(Recall.Remembered.class, memory().recall()).disk();
        byte[] record = RememberedDisk.of(HOST_UUID, CLUSTER, HOST_KEY, true, genuine.writerDigest()).encode();
        TpmClient tpm = swtpm.client();
        tpm.nv().undefineSpace(INDEX);
        tpm.nv().defineSpace(INDEX, NvPublic.AUTHWRITE | NvPublic.WRITEALL | NvPublic.AUTHREAD | NvPublic.NO_DA, record.length);
        tpm.nv().write(INDEX, record);
        reboot(GENUINE_IMAGE);
        assertDetected(memory().recall(), "attributes");
    }

    @Test
    @DisplayName("a host that redefines the NV index with the genuine attributes but a policy of its own, its record naming the genuine writer, is detected by the authPolicy")
    void redefinedWithBorrowedWriter() throws Exception {
        memory().remember(FakeLuks.UUID, CLUSTER, GENUINE_KEY, true);
        RememberedDisk genuine = assertInstanceOf(Recall.Remembered.class, memory().recall()).disk();
        byte[] record = RememberedDisk.of(HOST_UUID, CLUSTER, HOST_KEY, true, genuine.writerDigest()).encode();
        reboot("the host's own image");
        TpmClient tpm = swtpm.client();
        byte[] hostWriter = WritePolicy.writerBeforeLock(tpm.pcr().read(TpmAlg.SHA256, WritePolicy.PCRS));
        tpm.nv().undefineSpace(INDEX);
        tpm.nv().defineSpace(INDEX, genuineAttributes(), WritePolicy.authPolicy(hostWriter), record.length);
        int session = tpm.policy().startPolicySession();
        tpm.policy().pcr(session, WritePolicy.PCRS, hostWriter);
        tpm.nv().writeUnderPolicy(INDEX, record, session);
        reboot(GENUINE_IMAGE);
        assertDetected(memory().recall(), "authPolicy");
    }

    @Test
    @DisplayName("a rejoin key from a join service of another cluster (other PCR 15), on the genuine image under the image's EK CA, is refused in the handshake")
    void rejoinFromAnotherClusterRefused() throws Exception {
        TestPki imageCa = new TestPki("the EK CA built into the image");
        Path ekCa = Files.writeString(dir.resolve("ek-ca.pem"), "-----BEGIN CERTIFICATE-----\n"
                + Base64.getMimeEncoder().encodeToString(imageCa.caCertificate().getEncoded()) + "\n-----END CERTIFICATE-----\n");
        JoinServiceTrust trust = new JoinServiceTrust(new JoinServiceTrustSettings(ekCa, dir.resolve("no-host-ek-ca"), false,
                false), swtpm.client());
        AttestationVerifier rejoin = trust.rejoinVerifier(sha256(CLUSTER));

        var e = assertThrows(AttestationRejected.class, () -> verify(rejoin, service(imageCa, bytes("the host's own cluster"))));
        assertEquals(Reason.PCR_MISMATCH, e.reason(), e::toString);
        verify(rejoin, service(imageCa, CLUSTER));
    }

    // --- the node and the host's tools ---

    private void bootImage(String image) throws Exception {
        swtpm.client().pcr().extend(4, sha256(bytes(image + " Authenticode hash")));
        swtpm.client().pcr().extend(11, sha256(bytes(image + " UKI sections")));
    }

    private void reboot(String image) throws Exception {
        swtpm.restart();
        bootImage(image);
    }

    private TpmDiskMemory memory() throws Exception {
        return new TpmDiskMemory(swtpm.client(), new RememberedDiskSettings(false, List.of()));
    }

    private UnlockPlanner planner(java.util.function.BooleanSupplier hostSaysControlPlane) throws Exception {
        return new UnlockPlanner(memory(), new RememberedDiskSettings(false, List.of()), hostSaysControlPlane);
    }

    private static int genuineAttributes() {
        return NvPublic.POLICYWRITE | NvPublic.WRITEALL | NvPublic.AUTHREAD | NvPublic.NO_DA;
    }

    private void assertDetected(Recall recall, String why) throws Exception {
        Recall.Refused refused = assertInstanceOf(Recall.Refused.class, recall, recall::toString);
        assertTrue(refused.why().contains(why), refused.why());
        UnlockPlan plan = planner(() -> true).plan(HOST_UUID);
        assertInstanceOf(UnlockPlan.StayLocked.class, plan);
    }

    /**
     * A LUKS disk the host formatted with its own key under the UUID the node's TPM remembers, its
     * node state naming the operator's cluster and a control plane (the host knows both): what the
     * genuine pipeline would have left, keyed by the host.
     */
    private TestNode hostFormattedDisk() throws Exception {
        var kubernetes = new FakeKubernetes(new DriverResult.Started(new byte[0]));
        TestNode node = new TestNode(dir, new FakeLuks(), id -> { }, kubernetes);
        node.disk.prepareFresh();
        node.disk.changeKey(node.disk.bootPassphrase(), HOST_KEY);
        node.disk.openAndMount(HOST_KEY);
        node.stateFile.write(new NodeState(BootstrapStatus.Role.CONTROL_PLANE.label(), "node-0",
                HexFormat.of().formatHex(CLUSTER), "2026-01-01T00:00:00Z", Base64.getEncoder().encodeToString(new byte[32]),
                new NodeState.KubernetesRole("server", "https://10.0.2.2:6443", "K10cafe::abcdef.0123"), false, Map.of(),
                null));
        node.disk.markInitialized();
        return node.reboot(id -> { }, kubernetes);
    }

    /** A join service on the genuine image (its PCRs replayed from the node's own), its PCR 15 marked with {@code clusterId}. */
    private SoftwareTpmAttester service(TestPki ca, byte[] clusterId) throws Exception {
        SoftwareTpmOptions replayed = SoftwareTpmOptions.defaults().withEvents(List.of());
        var own = swtpm.client().pcr().readAll(TpmAlg.SHA256);
        for (int pcr : List.of(4, 9, 11, 12, 13)) {
            replayed = replayed.withPcr(pcr, own.get(pcr));
        }
        return new SoftwareTpmAttester(ca, replayed.withPcr(15, JoinServiceTrust.markOf(sha256(clusterId))));
    }

    private static void verify(AttestationVerifier verifier, SoftwareTpmAttester service) throws Exception {
        byte[] nonce = bytes("ClientHello.random of this rejoin");
        byte[] spki = sha256(bytes("the service's minted key"));
        verifier.verify(service.attest(Purpose.ATLS_SERVER, nonce, spki).toByteArray(), Purpose.ATLS_SERVER, nonce, spki);
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] sha256(byte[] b) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(b);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
