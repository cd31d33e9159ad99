package dev.sextant.images;

import dev.sextant.attestation.policy.MeasurementsFile;
import dev.sextant.attestation.testkit.SoftwareTpmAttester;
import dev.sextant.attestation.testkit.SoftwareTpmOptions;
import dev.sextant.attestation.testkit.TestPki;
import java.io.IOException;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.HexFormat;
import java.util.stream.Stream;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;

/**
 * The files the two services read from their Kubernetes mounts, written to host directories that the
 * containers bind-mount read-only. The services run as uid 10001, so every file is world-readable:
 * acceptable for throw-away test secrets only.
 */
final class ServiceFiles {

    /** The KMS golden vector (kms/KeyServiceEndpointTest): HKDF(secret, salt, "key-measurementSecret"). */
    static final byte[] KMS_SECRET = HexFormat.of().parseHex("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f");
    static final byte[] KMS_SALT = HexFormat.of().parseHex("a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf");
    static final String KMS_GOLDEN_KEY = "7420076e98cec75bf0de6a6e8b35c9e6a4e6c8fc3772a036bbfb035a509bf4bf";

    private ServiceFiles() {
    }

    /** /var/config of the KMS: mastersecret and salt (the defaults of its application.yml). */
    static Path kms(Path dir) throws IOException {
        Files.createDirectories(dir);
        Files.write(dir.resolve("mastersecret"), KMS_SECRET);
        Files.write(dir.resolve("salt"), KMS_SALT);
        return readableByAll(dir);
    }

    /**
     * /var/config of the join service (signed measurements of {@code node}, their public key, the EK CA
     * bundle, the measurement salt), laid out as its application.yml defaults expect.
     */
    static Path joinConfig(Path dir, TestPki ekCa, SoftwareTpmAttester node) throws Exception {
        KeyPair signing = KeyPairGenerator.getInstance("Ed25519").generateKeyPair();
        Path measurements = Files.createDirectories(dir.resolve("measurements")).resolve("measurements.json");
        Files.write(measurements, node.measurements().toJson());
        MeasurementsFile.sign(measurements, pem(signing.getPrivate()));
        Files.writeString(Files.createDirectories(dir.resolve("measurements-key")).resolve("measurements.pub"),
                pem(signing.getPublic()));
        Files.writeString(Files.createDirectories(dir.resolve("ek-ca")).resolve("ek-ca.pem"), pem(ekCa.caCertificate()));
        byte[] salt = new byte[32];
        new SecureRandom().nextBytes(salt);
        Files.write(dir.resolve("measurementSalt"), salt);
        return readableByAll(dir);
    }

    /** /etc/kubernetes/pki of the join service: a throw-away cluster CA (EC P-256), made by openssl. */
    static Path clusterPki(Path dir) throws IOException, InterruptedException {
        Files.createDirectories(dir);
        Command.check(Duration.ofSeconds(30), "openssl", "req", "-x509", "-newkey", "ec",
                "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2", "-subj", "/CN=kubernetes",
                "-keyout", dir.resolve("ca.key").toString(), "-out", dir.resolve("ca.crt").toString());
        return readableByAll(dir);
    }

    static SoftwareTpmAttester node(TestPki ekCa) {
        return new SoftwareTpmAttester(ekCa, SoftwareTpmOptions.defaults());
    }

    private static Path readableByAll(Path dir) throws IOException {
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path p : all.toList()) {
                Files.setPosixFilePermissions(p, PosixFilePermissions.fromString(Files.isDirectory(p) ? "rwxr-xr-x" : "rw-r--r--"));
            }
        }
        return dir;
    }

    private static String pem(Object o) throws IOException {
        StringWriter s = new StringWriter();
        try (JcaPEMWriter w = new JcaPEMWriter(s)) {
            w.writeObject(o);
        }
        return s.toString();
    }
}
