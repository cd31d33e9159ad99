package dev.sextant.nodeboot.deploy;

import com.google.protobuf.ByteString;
import dev.sextant.attestation.policy.MeasurementsFile;
import dev.sextant.clusterservices.InitNodeBinding;
import dev.sextant.proto.v1.SignedMeasurements;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;

/** What init hands the node-local deployer in the tests: signed measurements and the init node "control-plane-0". */
public final class DeployInputs {
    public static final String NODE = "control-plane-0";
    public static final String AK = "000b" + "ab".repeat(32);
    public static final String EK_CA = "-----BEGIN CERTIFICATE-----\n(ek ca)\n-----END CERTIFICATE-----\n";
    public static final List<String> DISKS = List.of("c3833f4f-fab2-41c3-aae8-d8d0f1dc9ee4", "5b1f0c1e-0000-4000-8000-000000000001");
    // Every PCR a measurements file must cover (4, 9, 11, 12, 13, 15), all zero.
    public static final String MEASUREMENTS = "{\"variant\":\"qemu-vtpm\",\"measurements\":{"
            + Stream.of(4, 9, 11, 12, 13, 15).map(pcr -> "\"" + pcr + "\":{\"expected\":\"" + "00".repeat(32)
                    + "\",\"warnOnly\":false}").collect(Collectors.joining(",")) + "}}";

    private DeployInputs() {
    }

    public static SignedMeasurements signed(Path dir, String json) throws Exception {
        KeyPair key = KeyPairGenerator.getInstance("Ed25519").generateKeyPair();
        Path file = Files.writeString(Files.createDirectories(dir).resolve("m-" + System.nanoTime() + ".json"), json);
        MeasurementsFile.sign(file, pem(key.getPrivate()));
        return SignedMeasurements.newBuilder().setJson(ByteString.copyFromUtf8(json))
                .setSignature(ByteString.copyFrom(Files.readAllBytes(MeasurementsFile.signatureFile(file))))
                .setPublicKeyPem(pem(key.getPublic())).build();
    }

    public static ServicesInput input(SignedMeasurements measurements, byte[] masterSecret, byte[] masterSalt) {
        return new ServicesInput(masterSecret, masterSalt, new byte[32], measurements, EK_CA, NODE + ":6443", new byte[0],
                new InitNodeBinding(AK, NODE, DISKS), NODE, 5);
    }

    /** What a control plane's ticket hands the deployer: {@code node} joins the etcd cluster {@code members}. */
    public static ControlPlaneInput joining(String node, Map<String, String> members, SignedMeasurements measurements,
                                            byte[] masterSecret, byte[] masterSalt) {
        byte[] measurementSalt = new byte[32];
        Arrays.fill(measurementSalt, (byte) 0x53);
        return new ControlPlaneInput(masterSecret, masterSalt, measurementSalt, measurements, EK_CA, node, members);
    }

    private static String pem(Object o) throws Exception {
        StringWriter s = new StringWriter();
        try (JcaPEMWriter w = new JcaPEMWriter(s)) {
            w.writeObject(o);
        }
        return s.toString();
    }
}
