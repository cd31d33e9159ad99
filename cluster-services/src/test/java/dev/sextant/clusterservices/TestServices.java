package dev.sextant.clusterservices;

import dev.sextant.attestation.policy.MeasurementsFile;
import java.io.IOException;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;

/**
 * A cluster's services configuration for tests: a fresh Ed25519 measurements key, measurements
 * files signed with it, and fixed stand-ins for the EK CA and the secrets.
 */
public final class TestServices {
    public static final String JOIN_IMAGE = "127.0.0.1:5000/sextant/join-service@sha256:" + "a1".repeat(32);
    public static final String KMS_IMAGE = "127.0.0.1:5000/sextant/kms@sha256:" + "b1".repeat(32);
    public static final String JOIN_IMAGE_V2 = "127.0.0.1:5000/sextant/join-service@sha256:" + "a2".repeat(32);
    public static final String KMS_IMAGE_V2 = "127.0.0.1:5000/sextant/kms@sha256:" + "b2".repeat(32);

    public static final InitNodeBinding INIT_NODE = new InitNodeBinding("000b" + "ab".repeat(32), "control-plane-0",
            java.util.List.of("6f1c1f0e-2f4b-4d8a-9a57-0d0c5e3e0a01", "6f1c1f0e-2f4b-4d8a-9a57-0d0c5e3e0a02"));

    /** Stand-ins for the join service's etcd client certificate (rendering does not parse them). */
    public static final EtcdClientCredential ETCD = new EtcdClientCredential(2379,
            "-----BEGIN CERTIFICATE-----\nTEST-ETCD-CA\n-----END CERTIFICATE-----\n",
            "-----BEGIN CERTIFICATE-----\nTEST-JOIN-SERVICE-ETCD-CLIENT\n-----END CERTIFICATE-----\n",
            "-----BEGIN PRIVATE KEY-----\nTEST-JOIN-SERVICE-ETCD-KEY\n-----END PRIVATE KEY-----\n".getBytes(StandardCharsets.US_ASCII));

    private final KeyPair measurementsKey;
    private final Path dir;

    public TestServices(Path dir) throws GeneralSecurityException {
        this.dir = dir;
        this.measurementsKey = KeyPairGenerator.getInstance("Ed25519").generateKeyPair();
    }

    public String publicKeyPem() throws IOException {
        return pem(measurementsKey.getPublic());
    }

    /** measurements.json (PCR 4 = the given byte repeated) and its .sig, signed with the cluster's key. */
    public Path signedMeasurements(String name, int pcr4Fill) throws Exception {
        Path file = dir.resolve(name);
        Files.writeString(file, measurementsJson(pcr4Fill));
        MeasurementsFile.sign(file, pem(measurementsKey.getPrivate()));
        return file;
    }

    /**
     * A set signed with {@code signing}'s private key, naming {@code nextKey} (when not null) as the key that
     * signs the sets after it: a key rotation when {@code signing} is the cluster's key.
     */
    public Path signedMeasurements(String name, int pcr4Fill, KeyPair signing, java.security.PublicKey nextKey) throws Exception {
        Path file = dir.resolve(name);
        Files.writeString(file, measurementsJson(pcr4Fill));
        if (nextKey == null) {
            MeasurementsFile.sign(file, pem(signing.getPrivate()));
        } else {
            MeasurementsFile.signNamingNextKey(file, pem(signing.getPrivate()), pem(nextKey));
        }
        return file;
    }

    /** The cluster's measurements key pair, as init made it. */
    public KeyPair measurementsKey() {
        return measurementsKey;
    }

    public static String pemOf(Object o) throws IOException {
        return pem(o);
    }

    public ServicesConfig config() throws Exception {
        Path measurements = signedMeasurements("initial-measurements.json", 0x11);
        return new ServicesConfig(JOIN_IMAGE, KMS_IMAGE, Files.readAllBytes(measurements),
                Files.readAllBytes(MeasurementsFile.signatureFile(measurements)), publicKeyPem(),
                "-----BEGIN CERTIFICATE-----\nTEST-EK-CA\n-----END CERTIFICATE-----\n",
                bytes(32, 0x42), bytes(32, 0x43), bytes(32, 0x44), "10.0.0.1:6443", ServicesConfig.DEFAULT_JOIN_NODE_PORT, INIT_NODE,
                ETCD);
    }

    /** Fixed values throughout, for the golden rendering. */
    public static ServicesConfig fixed() {
        return new ServicesConfig(JOIN_IMAGE, KMS_IMAGE, measurementsJson(0x11).getBytes(StandardCharsets.UTF_8),
                "c2lnbmF0dXJl\n".getBytes(StandardCharsets.UTF_8),
                "-----BEGIN PUBLIC KEY-----\nTEST-MEASUREMENTS-KEY\n-----END PUBLIC KEY-----\n",
                "-----BEGIN CERTIFICATE-----\nTEST-EK-CA\n-----END CERTIFICATE-----\n",
                bytes(32, 0x42), bytes(32, 0x43), bytes(32, 0x44), "10.0.0.1:6443", ServicesConfig.DEFAULT_JOIN_NODE_PORT, INIT_NODE,
                ETCD);
    }

    /** A complete set (PCR 4, 9, 11, 12, 13, 15), PCR 4 filled with the given byte, the others zero. */
    public static String measurementsJson(int pcr4Fill) {
        String pcr4 = String.format("%02x", pcr4Fill).repeat(32);
        String entries = java.util.stream.Stream.of(4, 9, 11, 12, 13, 15)
                .map(pcr -> "\"" + pcr + "\":{\"expected\":\"" + (pcr == 4 ? pcr4 : "00".repeat(32)) + "\",\"warnOnly\":false}")
                .collect(java.util.stream.Collectors.joining(","));
        return "{\"variant\":\"qemu-vtpm\",\"measurements\":{" + entries + "}}\n";
    }

    static byte[] bytes(int n, int fill) {
        byte[] b = new byte[n];
        java.util.Arrays.fill(b, (byte) fill);
        return b;
    }

    private static String pem(Object o) throws IOException {
        StringWriter out = new StringWriter();
        try (JcaPEMWriter w = new JcaPEMWriter(out)) {
            w.writeObject(o);
        }
        return out.toString();
    }
}
