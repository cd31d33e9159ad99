package dev.sextant.joinapi.attacks;

import dev.sextant.attestation.ecdsa.BouncyCastleEcdsa;
import dev.sextant.attestation.ecdsa.Ecdsa;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.sextant.attestation.policy.ExpectedValue;
import dev.sextant.attestation.policy.Measurements;
import dev.sextant.attestation.policy.MeasurementsException;
import dev.sextant.attestation.policy.MeasurementsFile;
import dev.sextant.attestation.policy.MeasurementSet;
import dev.sextant.attestation.testkit.SoftwareTpmAttester;
import dev.sextant.attestation.verify.AkTrust;
import dev.sextant.joinapi.measurements.ReloadingVerifier;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.Signature;
import java.util.Base64;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * Attacks on the join service's measurements by someone who can write the mounted files (or replay
 * old ConfigMap contents) but cannot sign: only sets signed with the cluster's key load, and of
 * those, no older one and no incomplete one.
 */
@DisplayName("Attacks on the join service's measurements")
class MeasurementsAttacksTest {
    private static final Ecdsa ECDSA = new BouncyCastleEcdsa(new java.security.SecureRandom());
    private static final SoftwareTpmAttester NODE = new SoftwareTpmAttester();

    @TempDir
    Path dir;
    private Path file;
    private PrivateKey signingKey;
    private String privatePem;
    private String publicPem;
    private final ListAppender<ILoggingEvent> log = new ListAppender<>();
    private final Logger logger = (Logger) LoggerFactory.getLogger(ReloadingVerifier.class);

    @BeforeEach
    void keys() throws Exception {
        KeyPair key = KeyPairGenerator.getInstance("Ed25519").generateKeyPair();
        signingKey = key.getPrivate();
        privatePem = pem(key.getPrivate());
        publicPem = pem(key.getPublic());
        file = dir.resolve("measurements.json");
        log.start();
        logger.addAppender(log);
    }

    @AfterEach
    void detach() {
        logger.detachAppender(log);
    }

    private void publish(byte[] json) throws Exception {
        Files.write(file, json);
        MeasurementsFile.sign(file, privatePem);
    }

    /** Signs without the signing tool's parse, as a key holder could (the tool refuses incomplete sets itself). */
    private void publishUnchecked(byte[] json) throws Exception {
        Signature signature = Signature.getInstance("Ed25519");
        signature.initSign(signingKey);
        signature.update(json);
        Files.write(file, json);
        Files.writeString(MeasurementsFile.signatureFile(file), Base64.getEncoder().encodeToString(signature.sign()));
    }

    private String logged() {
        return log.list.stream().map(ILoggingEvent::getFormattedMessage).collect(Collectors.joining("\n"));
    }

    @Test
    @DisplayName("a validly signed measurement set with a lower version (a replayed old set): the hot reload refuses it, keeps the old one and logs why")
    void lowerVersion() throws Exception {
        publish(MeasurementSet.of(5, NODE.measurements(), "1").toJson());
        ReloadingVerifier verifier = new ReloadingVerifier(file, publicPem, AkTrust.insecureTrustAnyAk(), ECDSA);

        publish(MeasurementSet.of(3, NODE.measurements(), "1").toJson());
        assertFalse(verifier.reload(), "refused");

        assertEquals(5, verifier.version());
        assertTrue(logged().contains("its version 3 is lower than version 5 in force"), logged());
        publish(MeasurementSet.of(6, NODE.measurements(), "1").toJson());
        assertTrue(verifier.reload(), "a higher version still goes through");
        assertEquals(6, verifier.version());
    }

    @Test
    @DisplayName("a validly signed measurement set without PCR 15 (any node lock accepted): refused at start and on reload, naming the PCR")
    void withoutPcr15() throws Exception {
        TreeMap<Integer, ExpectedValue> values = new TreeMap<>(NODE.measurements().measurements());
        values.remove(15);
        byte[] without15 = MeasurementSet.of(9, new Measurements(NODE.measurements().variant(), values), "1").toJson();

        publishUnchecked(without15);
        MeasurementsException start = assertThrows(MeasurementsException.class,
                () -> new ReloadingVerifier(file, publicPem, AkTrust.insecureTrustAnyAk(), ECDSA));
        assertTrue(start.getMessage().contains("lacks PCR 15"), start.getMessage());

        publish(MeasurementSet.of(1, NODE.measurements(), "1").toJson());
        ReloadingVerifier verifier = new ReloadingVerifier(file, publicPem, AkTrust.insecureTrustAnyAk(), ECDSA);
        publishUnchecked(without15);
        assertFalse(verifier.reload(), "refused");
        assertEquals(1, verifier.version());
        assertTrue(verifier.measurements().images().get(0).measurements().measurements().containsKey(15));
        assertTrue(logged().contains("lacks PCR 15"), logged());
    }

    @Test
    @DisplayName("a validly signed measurement set that marks PCR 15 (or any of 4, 9, 11, 12, 13) warnOnly, so any node lock or boot chain passes with a warning: refused at start and on reload, naming the PCR")
    void warnOnlyOnARequiredPcr() throws Exception {
        for (int pcr : new int[] {4, 9, 11, 12, 13, 15}) {
            TreeMap<Integer, ExpectedValue> values = new TreeMap<>(NODE.measurements().measurements());
            values.put(pcr, new ExpectedValue(values.get(pcr).expected(), true));
            byte[] hollow = MeasurementSet.of(9, new Measurements(NODE.measurements().variant(), values), "1").toJson();

            publishUnchecked(hollow);
            MeasurementsException start = assertThrows(MeasurementsException.class,
                    () -> new ReloadingVerifier(file, publicPem, AkTrust.insecureTrustAnyAk(), ECDSA), "PCR " + pcr);
            assertTrue(start.getMessage().contains("PCR " + pcr + ": \"warnOnly\" is refused"), start.getMessage());

            publish(MeasurementSet.of(1, NODE.measurements(), "1").toJson());
            ReloadingVerifier verifier = new ReloadingVerifier(file, publicPem, AkTrust.insecureTrustAnyAk(), ECDSA);
            publishUnchecked(hollow);
            assertFalse(verifier.reload(), "refused");
            assertEquals(1, verifier.version());
            assertFalse(verifier.measurements().images().get(0).measurements().measurements().get(pcr).warnOnly());
        }
    }

    private static String pem(Object o) throws Exception {
        StringWriter s = new StringWriter();
        try (JcaPEMWriter w = new JcaPEMWriter(s)) {
            w.writeObject(o);
        }
        return s.toString();
    }
}
