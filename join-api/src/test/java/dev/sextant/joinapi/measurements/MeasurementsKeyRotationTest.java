package dev.sextant.joinapi.measurements;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sextant.attestation.ecdsa.BouncyCastleEcdsa;
import dev.sextant.attestation.policy.ExpectedValue;
import dev.sextant.attestation.policy.Measurements;
import dev.sextant.attestation.policy.MeasurementsFile;
import dev.sextant.attestation.policy.MeasurementsKey;
import dev.sextant.attestation.policy.MeasurementSet;
import dev.sextant.attestation.Variant;
import dev.sextant.attestation.verify.AkTrust;
import dev.sextant.grpcsupport.Refusal;
import dev.sextant.joinapi.binding.InMemoryBindingStoreDouble;
import dev.sextant.joinapi.refusal.JoinRefusal;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.SecureRandom;
import java.util.Optional;
import java.util.TreeMap;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@DisplayName("Measurement signing key: pinned by the first set admitted, rotated by a set the pinned key signed")
class MeasurementsKeyRotationTest {
    @TempDir
    Path dir;

    private final InMemoryBindingStoreDouble store = new InMemoryBindingStoreDouble();
    private final Measurements set = measurements();
    private KeyPair first;
    private KeyPair next;
    private Path file;
    private Path keyFile;
    private ReloadingVerifier verifier;
    private MeasurementsFloor admission;

    @BeforeEach
    void start() throws Exception {
        first = KeyPairGenerator.getInstance("Ed25519").generateKeyPair();
        KeyPairGenerator ec = KeyPairGenerator.getInstance("EC");
        ec.initialize(new java.security.spec.ECGenParameterSpec("secp256r1"));
        next = ec.generateKeyPair(); // the next key may be of the other kind
        file = dir.resolve("measurements.json");
        keyFile = dir.resolve("measurements.pub");
        publish(1, first, null, first);
        verifier = newVerifier();
        admission = admissionOf(verifier);
    }

    @Test
    @DisplayName("the operator's two steps, faster than any ticket: the next key's set arrives before a ticket admitted the "
            + "rotating set; the service that held the rotating set moves the pin at the next key's first ticket")
    void rotationHandedOverBeforeAnyTicket() throws Exception {
        admission.admitSetInForce();
        assertEquals(Optional.of(fingerprint(first)), store.measurementsKeyPinValue());

        publish(2, first, next, first);
        assertTrue(verifier.reload());
        publish(3, next, null, next); // the key file is read again with the set
        assertTrue(verifier.reload());
        admission.admitSetInForce();

        KeyPin pin = KeyPin.parse(store.measurementsKeyPinValue().orElseThrow());
        assertEquals(fingerprint(next), pin.key());
        assertEquals(new KeyPin.Rotation(fingerprint(first), verifier.setInForce().handedOverBy().orElseThrow().digest(), 2),
                pin.rotation().orElseThrow());
        assertEquals(3, store.measurementsFloorValue());
    }

    @Test
    @DisplayName("a service restarted since forgets the rotating set: the next key's set is refused until a service admits the rotation")
    void restartedServiceWithoutTheRotation() throws Exception {
        admission.admitSetInForce();
        publish(3, next, null, next);
        ReloadingVerifier restarted = new ReloadingVerifier(file, ReloadingVerifier.PublicKeySource.file(keyFile),
                AkTrust.insecureTrustAnyAk(), new BouncyCastleEcdsa(new SecureRandom()));
        Refusal r = assertThrows(Refusal.class,
                () -> admissionOf(restarted).admitSetInForce());
        assertEquals(JoinRefusal.MEASUREMENTS_KEY_NOT_PINNED, r.reason());
    }

    @Test
    @DisplayName("a rotating set below the floor moves nothing: refused MEASUREMENTS_BELOW_FLOOR, the pin stays")
    void rotationBelowTheFloor() throws Exception {
        admission.admitSetInForce(); // pins the first key (a refused admission writes nothing, not even a first pin)
        store.putMeasurementsFloor(7);
        publish(2, first, next, first);
        verifier.reload();
        Refusal r = assertThrows(Refusal.class, () -> admission.admitSetInForce());
        assertEquals(JoinRefusal.MEASUREMENTS_BELOW_FLOOR, r.reason());
        assertEquals(Optional.of(fingerprint(first)), store.measurementsKeyPinValue());
        assertEquals(7, store.measurementsFloorValue());
    }

    @Test
    @DisplayName("two join services admitting at once, a rotating set (6, signed by the pinned key, naming the next) and an "
            + "old-key set (7) whose pin was read before the rotation: the old-key set is refused MEASUREMENTS_KEY_NOT_PINNED "
            + "and raises no floor; the floor and the pin never disagree")
    void concurrentAdmissionsNeverDisagree() throws Exception {
        admission.admitSetInForce();
        publish(7, first, null, first);
        ReloadingVerifier other = newVerifier(); // another join service, holding version 7 of the old key
        publish(6, first, next, first);
        assertTrue(verifier.reload());

        store.afterNextPinRead(() -> admission.admitSetInForce()); // the rotation lands between the other's steps
        Refusal r = assertThrows(Refusal.class, () -> admissionOf(other).admitSetInForce(),
                "a set of the old key admitted after the pin moved");
        assertEquals(JoinRefusal.MEASUREMENTS_KEY_NOT_PINNED, r.reason());
        assertEquals(fingerprint(next), KeyPin.parse(store.measurementsKeyPinValue().orElseThrow()).key());
        assertEquals(6, store.measurementsFloorValue(), "the floor was raised by a set whose key is not the pin");
    }

    @Test
    @DisplayName("a join service stopping during a rotating set's admission (its cluster store writes fail after the first): "
            + "nothing or everything, never the floor raised to the rotating set's version with the pin unmoved")
    void stoppedMidAdmissionLeavesNothingOrEverything() throws Exception {
        admission.admitSetInForce();
        publish(6, first, next, first);
        assertTrue(verifier.reload());

        store.failMeasurementWritesAfter(1);
        try {
            admission.admitSetInForce();
        } catch (Refusal stopped) {
            assertEquals(JoinRefusal.CLUSTER_STORE_UNAVAILABLE, stopped.reason());
        }
        String pinned = KeyPin.parse(store.measurementsKeyPinValue().orElseThrow()).key();
        long floor = store.measurementsFloorValue();
        assertTrue((floor == 1 && pinned.equals(fingerprint(first))) || (floor == 6 && pinned.equals(fingerprint(next))),
                "floor " + floor + " with the pin at " + (pinned.equals(fingerprint(first)) ? "the old key" : "the next key"));
    }

    @Test
    @DisplayName("the pin's text reads back as written; anything else is not a pin")
    void pinText() {
        String a = "sha256:" + "a".repeat(64);
        String b = "sha256:" + "b".repeat(64);
        String c = "sha256:" + "c".repeat(64);
        KeyPin rotated = new KeyPin(a, Optional.of(new KeyPin.Rotation(b, c, 12)));
        assertEquals(a + " from " + b + " by-set " + c + " version 12", rotated.text());
        assertEquals(rotated, KeyPin.parse(rotated.text()));
        assertEquals(KeyPin.first(a), KeyPin.parse(a));
        for (String bad : new String[]{"", a + " ", "sha256:" + "A".repeat(64), a + " from " + b, "-----BEGIN PUBLIC KEY-----"}) {
            assertThrows(IllegalArgumentException.class, () -> KeyPin.parse(bad), bad);
        }
    }

    /** A join service's verifier on the files as they are now. */
    private ReloadingVerifier newVerifier() throws Exception {
        return new ReloadingVerifier(file, ReloadingVerifier.PublicKeySource.file(keyFile), AkTrust.insecureTrustAnyAk(),
                new BouncyCastleEcdsa(new SecureRandom()));
    }

    private MeasurementsFloor admissionOf(ReloadingVerifier set) {
        return new MeasurementsFloor(store, set);
    }

    private void publish(long version, KeyPair signing, KeyPair nextKey, KeyPair configured) throws Exception {
        MeasurementSet v = MeasurementSet.of(version, set, "1");
        if (nextKey != null) {
            v = v.withNextKey(MeasurementsKey.of(pem(nextKey.getPublic())));
        }
        Files.write(file, v.toJson());
        MeasurementsFile.sign(file, pem(signing.getPrivate()));
        Files.writeString(keyFile, pem(configured.getPublic()));
    }

    private static String fingerprint(KeyPair key) throws Exception {
        return MeasurementsKey.of(pem(key.getPublic())).fingerprint();
    }

    private static Measurements measurements() {
        TreeMap<Integer, ExpectedValue> pcrs = new TreeMap<>();
        for (int pcr : new int[]{4, 9, 11, 12, 13, 15}) {
            pcrs.put(pcr, new ExpectedValue(new byte[32], false));
        }
        return new Measurements(Variant.QEMU_VTPM, pcrs);
    }

    private static String pem(Object o) throws Exception {
        StringWriter s = new StringWriter();
        try (JcaPEMWriter w = new JcaPEMWriter(s)) {
            // PKCS#8 for private keys: JcaPEMWriter's SEC1 form of an EC key leaves the curve out.
            w.writeObject(o instanceof java.security.PrivateKey k ? new org.bouncycastle.openssl.jcajce.JcaPKCS8Generator(k, null) : o);
        }
        return s.toString();
    }
}
