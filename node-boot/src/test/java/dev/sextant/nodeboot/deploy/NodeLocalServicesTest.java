package dev.sextant.nodeboot.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import dev.sextant.attestation.policy.MeasurementsFile;
import dev.sextant.diskcrypt.CommandRunner;
import dev.sextant.proto.v1.SignedMeasurements;
import dev.sextant.serviceconfig.JoinServiceConfig;
import dev.sextant.serviceconfig.KmsConfig;
import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@DisplayName("Cluster services on a control plane without Kubernetes")
class NodeLocalServicesTest {
    // Every PCR a measurements file must cover (4, 9, 11, 12, 13, 15), all zero.
    private static final String MEASUREMENTS = "{\"variant\":\"qemu-vtpm\",\"measurements\":{"
            + java.util.stream.Stream.of(4, 9, 11, 12, 13, 15).map(pcr -> "\"" + pcr + "\":{\"expected\":\"" + "00".repeat(32)
                    + "\",\"warnOnly\":false}").collect(java.util.stream.Collectors.joining(",")) + "}}";

    @TempDir
    Path dir;

    private final List<List<String>> commands = new ArrayList<>();
    private final CommandRunner systemctl = (argv, stdin) -> {
        commands.add(argv);
        return new CommandRunner.Result(0, "", "");
    };

    /** Stand-ins for the two services' ports: listening as soon as "systemctl start" returned. */
    private final ServerSocket kms = listen();
    private final ServerSocket join = listen();

    private static ServerSocket listen() {
        try {
            return new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @AfterEach
    void close() throws IOException {
        kms.close();
        join.close();
    }

    private NodeLocalServices services(CommandRunner runner, int joinPort, Duration readyTimeout) {
        return new NodeLocalServices(new NodeLocalSettings(dir.resolve("services"), kms.getLocalPort(), joinPort,
                "device:/dev/tpmrm0", readyTimeout), runner);
    }

    private NodeLocalServices services() {
        return services(systemctl, join.getLocalPort(), Duration.ofSeconds(10));
    }

    private SignedMeasurements signed(String json) throws Exception {
        KeyPair key = KeyPairGenerator.getInstance("Ed25519").generateKeyPair();
        Path file = Files.writeString(dir.resolve("m.json"), json);
        MeasurementsFile.sign(file, pem(key.getPrivate()));
        return SignedMeasurements.newBuilder().setJson(ByteString.copyFromUtf8(json))
                .setSignature(ByteString.copyFrom(Files.readAllBytes(MeasurementsFile.signatureFile(file))))
                .setPublicKeyPem(pem(key.getPublic())).build();
    }

    private static ServicesInput input(SignedMeasurements measurements) {
        return new ServicesInput(new byte[32], new byte[32], new byte[32], measurements,
                "-----BEGIN CERTIFICATE-----\n(ek ca)\n-----END CERTIFICATE-----\n", "control-plane-0:6443", new byte[0],
                new dev.sextant.clusterservices.InitNodeBinding("000b" + "ab".repeat(32), "control-plane-0",
                        java.util.List.of("c3833f4f-fab2-41c3-aae8-d8d0f1dc9ee4", "5b1f0c1e-0000-4000-8000-000000000001")));
    }

    private Properties properties(String name) throws Exception {
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(dir.resolve("services").resolve(name))) {
            p.load(r);
        }
        return p;
    }

    private static String pem(Object o) throws Exception {
        StringWriter s = new StringWriter();
        try (JcaPEMWriter w = new JcaPEMWriter(s)) {
            w.writeObject(o);
        }
        return s.toString();
    }

    @Test
    @DisplayName("start the KMS and the join service units, configured to find each other, the measurements, a fresh cluster CA and the init node's bindings")
    void startsBoth() throws Exception {
        String line = services().deploy(input(signed(MEASUREMENTS)));

        assertEquals(List.of(List.of("systemctl", "start", "sextant-kms.service", "sextant-join.service")), commands);
        assertTrue(line.contains("KMS and join service running"), line);
        // Read back the way the services bind them: through the typed records.
        KmsConfig kms = KmsConfig.from(properties("kms.properties"));
        JoinServiceConfig join = JoinServiceConfig.from(properties("join.properties"));
        assertEquals(Optional.of(this.kms.getLocalPort()), kms.ports().grpc());
        assertEquals("127.0.0.1:" + this.kms.getLocalPort(), join.kms().endpoint());
        assertEquals(Optional.of(this.join.getLocalPort()), join.ports().grpc());
        assertFalse(join.kubernetes().enabled());
        assertEquals(Optional.of("device:/dev/tpmrm0"), join.atls().serverTpm());
        assertEquals("control-plane-0:6443", join.apiServerEndpoint());
        JoinServiceConfig.InitNode init = join.initNode().orElseThrow();
        assertEquals("000b" + "ab".repeat(32), init.akNameHex(), "the init node's AK, bound before the service serves");
        assertEquals("control-plane-0", init.nodeName());
        assertEquals(List.of("c3833f4f-fab2-41c3-aae8-d8d0f1dc9ee4", "5b1f0c1e-0000-4000-8000-000000000001"),
                init.diskUuids(), "the state disk first, then the data volume");
        Path measurements = join.measurements().file();
        MeasurementsFile.verify(measurements, Files.readString(join.measurements().publicKeyFile()));
        assertTrue(Files.readString(join.ca().certFile()).startsWith("-----BEGIN CERTIFICATE-----"));
        assertTrue(Files.readString(join.ca().keyFile()).startsWith("-----BEGIN PRIVATE KEY-----"));
        for (Path secret : List.of(kms.masterSecretFile(), kms.saltFile(), join.ca().keyFile(), join.measurementSaltFile())) {
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(secret)), secret.toString());
        }
    }

    @Test
    @DisplayName("after a reboot start the same units again from the files init left on the state disk, or say that none are there")
    void restartAfterReboot() throws Exception {
        ClusterServicesException none = assertThrows(ClusterServicesException.class, () -> services().restart());
        assertTrue(none.getMessage().contains("no service configuration"), none.getMessage());
        services().deploy(input(signed(MEASUREMENTS)));
        String kmsBefore = Files.readString(dir.resolve("services/kms.properties"));
        commands.clear();
        String line = services().restart();
        assertEquals(List.of(List.of("systemctl", "start", "sextant-kms.service", "sextant-join.service")), commands);
        assertTrue(line.contains("started again"), line);
        assertEquals(kmsBefore, Files.readString(dir.resolve("services/kms.properties")), "nothing is rewritten");
    }

    @Test
    @DisplayName("with unsigned measurements start only the KMS and say why the join service is missing")
    void unsignedMeasurements() throws Exception {
        SignedMeasurements unsigned = SignedMeasurements.newBuilder().setJson(ByteString.copyFromUtf8(MEASUREMENTS)).build();
        String line = services().deploy(input(unsigned));
        assertEquals(List.of(List.of("systemctl", "start", "sextant-kms.service")), commands);
        assertTrue(line.contains("join service NOT started") && line.contains("not signed"), line);
        assertFalse(Files.exists(dir.resolve("services/join.properties")));
    }

    @Test
    @DisplayName("refuse measurements whose signature does not verify, before starting anything")
    void badSignature() throws Exception {
        SignedMeasurements tampered = signed(MEASUREMENTS).toBuilder()
                .setJson(ByteString.copyFromUtf8(MEASUREMENTS.replace("qemu-vtpm", "other"))).build();
        ClusterServicesException e = assertThrows(ClusterServicesException.class, () -> services().deploy(input(tampered)));
        assertTrue(e.getMessage().contains("not a valid signature"), e.getMessage());
        assertEquals(List.of(), commands);
    }

    @Test
    @DisplayName("report a unit that does not start with systemctl's own words")
    void unitFails() throws Exception {
        CommandRunner failing = (argv, stdin) -> new CommandRunner.Result(5, "", "Unit sextant-join.service not found.");
        ClusterServicesException e = assertThrows(ClusterServicesException.class,
                () -> services(failing, join.getLocalPort(), Duration.ofSeconds(1)).deploy(input(signed(MEASUREMENTS))));
        assertTrue(e.getMessage().contains("exit 5") && e.getMessage().contains("not found"), e.getMessage());
    }

    @Test
    @DisplayName("fail init when a started service never listens, quoting systemd's status of the units")
    void serviceNeverListens() throws Exception {
        int closedPort;
        try (ServerSocket s = listen()) {
            closedPort = s.getLocalPort();
        }
        CommandRunner runner = (argv, stdin) -> new CommandRunner.Result(0,
                argv.get(1).equals("status") ? "sextant-join.service: Main process exited, code=exited, status=1/FAILURE" : "", "");
        ClusterServicesException e = assertThrows(ClusterServicesException.class,
                () -> services(runner, closedPort, Duration.ofMillis(600)).deploy(input(signed(MEASUREMENTS))));
        assertTrue(e.getMessage().contains("nothing listens on port " + closedPort) && e.getMessage().contains("status=1/FAILURE"),
                e.getMessage());
    }
}
