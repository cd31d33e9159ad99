package dev.sextant.joinapi.measurements;

import dev.sextant.attestation.ecdsa.BouncyCastleEcdsa;
import dev.sextant.attestation.ecdsa.Ecdsa;
import dev.sextant.attestation.Purpose;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sextant.attestation.policy.ExpectedValue;
import dev.sextant.attestation.policy.Measurements;
import dev.sextant.attestation.testkit.SoftwareTpmAttester;
import dev.sextant.attestation.verify.AkTrust;
import dev.sextant.attestation.verify.AttestationRejected;
import dev.sextant.attestation.verify.Reason;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.Signature;
import java.time.Duration;
import java.util.Base64;
import java.util.SortedMap;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@DisplayName("Measurements hot reload: a mounted ConfigMap is swapped like kubelet does it")
class ReloadingVerifierTest {
    private static final Ecdsa ECDSA = new BouncyCastleEcdsa(new java.security.SecureRandom());
    private static final SoftwareTpmAttester NODE = new SoftwareTpmAttester();
    private static final byte[] NONCE = new byte[32];
    private static final byte[] USER_DATA = new byte[32];

    @TempDir
    Path dir;
    private KeyPair signingKey;
    private KeyPair otherKey;
    private ReloadingVerifier verifier;
    private MeasurementsWatcher watcher;
    private int generation;

    @BeforeEach
    void mount() throws Exception {
        signingKey = KeyPairGenerator.getInstance("Ed25519").generateKeyPair();
        otherKey = KeyPairGenerator.getInstance("Ed25519").generateKeyPair();
        publish(NODE.measurements().toJson(), signingKey.getPrivate());
        Files.createSymbolicLink(dir.resolve("measurements.json"), Path.of("..data/measurements.json"));
        Files.createSymbolicLink(dir.resolve("measurements.json.sig"), Path.of("..data/measurements.json.sig"));
        String publicPem = "-----BEGIN PUBLIC KEY-----\n"
                + Base64.getMimeEncoder().encodeToString(signingKey.getPublic().getEncoded()) + "\n-----END PUBLIC KEY-----\n";
        verifier = new ReloadingVerifier(dir.resolve("measurements.json"), publicPem, AkTrust.ekCa(NODE.anchors()), ECDSA);
        // A long period: within this test only the watch events can trigger a reload.
        watcher = new MeasurementsWatcher(verifier, dir, Duration.ofMinutes(10));
    }

    @AfterEach
    void unmount() throws Exception {
        watcher.close();
    }

    /** kubelet's AtomicWriter: a new timestamped directory, then an atomic rename of the ..data symlink. */
    private void publish(byte[] json, PrivateKey key) throws Exception {
        Path version = Files.createDirectory(dir.resolve("..v" + (++generation)));
        Files.write(version.resolve("measurements.json"), json);
        Signature s = Signature.getInstance("Ed25519");
        s.initSign(key);
        s.update(json);
        Files.writeString(version.resolve("measurements.json.sig"), Base64.getEncoder().encodeToString(s.sign()));
        Path tmp = Files.createSymbolicLink(dir.resolve("..data_tmp"), version.getFileName());
        Files.move(tmp, dir.resolve("..data"), StandardCopyOption.ATOMIC_MOVE);
    }

    private static byte[] otherPcr4() {
        SortedMap<Integer, ExpectedValue> m = new TreeMap<>(NODE.measurements().measurements());
        byte[] other = new byte[32];
        other[0] = 0x42;
        m.put(4, new ExpectedValue(other, false));
        return new Measurements(NODE.measurements().variant(), m).toJson();
    }

    private void verifyNode() throws AttestationRejected {
        verifier.verify(NODE.attest(Purpose.ATLS_CLIENT, NONCE, USER_DATA).toByteArray(), Purpose.ATLS_CLIENT, NONCE, USER_DATA);
    }

    private void awaitRejection() throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (System.nanoTime() < deadline) {
            try {
                verifyNode();
            } catch (AttestationRejected e) {
                assertEquals(Reason.PCR_MISMATCH, e.reason());
                return;
            }
            Thread.sleep(20);
        }
        throw new AssertionError("the new measurements were not picked up within 10 s");
    }

    @Test
    @DisplayName("a validly signed new set replaces the old one without a restart")
    void validSwap() throws Exception {
        verifyNode();
        publish(otherPcr4(), signingKey.getPrivate());
        awaitRejection();
        assertEquals(0x42, verifier.measurements().images().get(0).measurements().measurements().get(4).expected()[0]);
    }

    @Test
    @DisplayName("a set signed with another key is refused and the old set stays in force")
    void wronglySignedRefused() throws Exception {
        publish(otherPcr4(), otherKey.getPrivate());
        assertFalse(verifier.reload(), "refused");
        verifyNode();
    }

    @Test
    @DisplayName("a correctly signed file that is not valid measurements JSON is refused; the old set stays")
    void garbageRefused() throws Exception {
        publish("{\"measurements\": \"nope\"".getBytes(), signingKey.getPrivate());
        assertFalse(verifier.reload(), "refused");
        verifyNode();
        // And a later valid update still goes through.
        publish(otherPcr4(), signingKey.getPrivate());
        awaitRejection();
    }

    @Test
    @DisplayName("the periodic check picks up a change even without watch events")
    void periodicFallback() throws Exception {
        watcher.close();
        try (MeasurementsWatcher polling = new MeasurementsWatcher(verifier, dir.resolve("..v1"), Duration.ofMillis(100))) {
            // Watching an unrelated directory: only the poll timeout can notice the swap.
            publish(otherPcr4(), signingKey.getPrivate());
            awaitRejection();
            assertTrue(verifier.measurements().images().get(0).measurements().measurements().get(4).expected()[0] == 0x42);
        }
    }
}
