package dev.sextant.joinapi;

import dev.sextant.attestation.policy.MeasurementsFile;
import dev.sextant.attestation.testkit.Mutation;
import dev.sextant.attestation.testkit.SoftwareTpmAttester;
import dev.sextant.attestation.testkit.SoftwareTpmOptions;
import dev.sextant.attestation.testkit.TestPki;
import dev.sextant.serviceconfig.JoinServiceConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.util.Map;

/**
 * Machines with software TPMs whose EK/AK certificates come from one test EK CA, and the signed
 * measurements file and EK CA bundle a production join service would be configured with.
 */
final class AttestedNodes {
    final TestPki ekCa;
    final SoftwareTpmAttester good;
    final SoftwareTpmAttester goodToo;
    final SoftwareTpmAttester misMeasured;
    final SoftwareTpmAttester foreign;
    /** The key {@link #configure} signed the measurements with (the operator's, as init pins it). */
    KeyPair signingKey;

    AttestedNodes() {
        this(new TestPki("sextant-join-test-ek-ca"));
    }

    AttestedNodes(TestPki ekCa) {
        this.ekCa = ekCa;
        good = new SoftwareTpmAttester(ekCa, SoftwareTpmOptions.defaults());
        goodToo = new SoftwareTpmAttester(ekCa, SoftwareTpmOptions.defaults());
        misMeasured = new SoftwareTpmAttester(ekCa, SoftwareTpmOptions.defaults().withPcr(7, filled(0x66)));
        foreign = new SoftwareTpmAttester(ekCa, SoftwareTpmOptions.defaults().with(Mutation.FOREIGN_CA));
    }

    /** Writes measurements.json(.sig), its public key and the EK CA bundle; returns the properties. */
    Map<String, String> configure(Path dir) throws Exception {
        KeyPair signing = KeyPairGenerator.getInstance("Ed25519").generateKeyPair();
        signingKey = signing;
        Path measurements = Files.createDirectories(dir.resolve("measurements")).resolve("measurements.json");
        Files.write(measurements, good.measurements().toJson());
        MeasurementsFile.sign(measurements, TestCluster.pem(signing.getPrivate()));
        Files.writeString(dir.resolve("measurements.pub"), TestCluster.pem(signing.getPublic()));
        Files.writeString(dir.resolve("ek-ca.pem"), TestCluster.pem(ekCa.caCertificate()));
        return Map.of(
                JoinServiceConfig.ATLS_ENABLED, "true",
                JoinServiceConfig.MEASUREMENTS_FILE, measurements.toString(),
                JoinServiceConfig.MEASUREMENTS_PUBLIC_KEY_FILE, dir.resolve("measurements.pub").toString(),
                JoinServiceConfig.EK_CA_FILE, dir.resolve("ek-ca.pem").toString());
    }

    private static byte[] filled(int b) {
        byte[] v = new byte[32];
        java.util.Arrays.fill(v, (byte) b);
        return v;
    }
}
