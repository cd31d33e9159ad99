package dev.sextant.nodeboot.deploy;

import dev.sextant.etcd.process.EtcdMemberConfig;
import static dev.sextant.nodeboot.deploy.DeployInputs.MEASUREMENTS;
import static dev.sextant.nodeboot.deploy.DeployInputs.input;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import dev.sextant.attestation.policy.MeasurementsFile;
import dev.sextant.diskcrypt.CommandRunner;
import dev.sextant.etcd.client.EndpointStatus;
import dev.sextant.etcd.pki.EtcdTlsFiles;
import dev.sextant.proto.v1.SignedMeasurements;
import dev.sextant.serviceconfig.JoinServiceConfig;
import dev.sextant.serviceconfig.KmsConfig;
import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@DisplayName("Cluster services on a control plane without Kubernetes")
class NodeLocalServicesTest {
    private static final List<String> START_ETCD = List.of("systemctl", "start", "sextant-etcd.service");
    private static final List<String> START_BOTH = List.of("systemctl", "start", "sextant-kms.service", "sextant-join.service");

    @TempDir
    Path dir;

    private final byte[] secret = random();
    private final byte[] salt = random();
    private final List<List<String>> commands = new ArrayList<>();
    private final CommandRunner systemctl = (argv, stdin) -> {
        commands.add(argv);
        return new CommandRunner.Result(0, "", "");
    };
    /** What the probe was asked with; it answers as a leader of its own unless a test says otherwise. */
    private final List<EtcdTlsFiles> probed = new ArrayList<>();
    private boolean learner;
    private final EtcdProbe etcd = (endpoint, tls, timeout) -> {
        probed.add(tls);
        return new EndpointStatus(endpoint, 7, learner ? 1 : 7, 2, 4, 4, learner, "3.4.23", List.of());
    };

    /** Stand-ins for the KMS's socket and the join service's port: listening as soon as "systemctl start" returned. */
    private KmsSocketStandIn kms;
    private final ServerSocket join = listen();

    @BeforeEach
    void kmsListens() {
        kms = new KmsSocketStandIn(dir.resolve("run/sextant/kms/kms.sock"));
    }

    private static byte[] random() {
        byte[] b = new byte[32];
        new SecureRandom().nextBytes(b);
        return b;
    }

    private static ServerSocket listen() {
        try {
            return new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @AfterEach
    void close() throws IOException {
        kms.close();
        join.close();
    }

    private NodeLocalSettings settings(int joinPort, Duration readyTimeout) {
        return new NodeLocalSettings(dir.resolve("services"), kms.socket(), joinPort, "device:/dev/tpmrm0", readyTimeout,
                2379, 2380, "", 0, 0, "sextant", dir.resolve("hosts"), EtcdMemberConfig.DEFAULT_HEARTBEAT);
    }

    private NodeLocalServices services(CommandRunner runner, int joinPort, Duration readyTimeout, EtcdProbe probe) {
        return new NodeLocalServices(settings(joinPort, readyTimeout), runner, probe);
    }

    private NodeLocalServices services() {
        return services(systemctl, join.getLocalPort(), Duration.ofSeconds(10), etcd);
    }

    private ServicesInput signedInput() throws Exception {
        return input(DeployInputs.signed(dir, MEASUREMENTS), secret, salt);
    }

    private Properties properties(String name) throws Exception {
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(dir.resolve("services").resolve(name))) {
            p.load(r);
        }
        return p;
    }

    @Test
    @DisplayName("start etcd, wait until it answers the join service's certificate, then the KMS and the join service, configured to find each other, etcd, the measurements, a fresh cluster CA and the init node's bindings")
    void startsAll() throws Exception {
        DeployedServices deployed = services().deploy(signedInput());

        assertEquals(List.of(START_ETCD, START_BOTH), commands, "etcd first: the join service's store must serve before it starts");
        assertEquals(EtcdStanding.MEMBER, deployed.etcd());
        assertTrue(deployed.summary().contains("etcd member at 127.0.0.1:2379") && deployed.summary().contains("KMS and join service running"),
                deployed.summary());
        // Read back the way the services bind them: through the typed records.
        KmsConfig kms = KmsConfig.from(properties("kms.properties"));
        JoinServiceConfig join = JoinServiceConfig.from(properties("join.properties"));
        assertEquals(Optional.empty(), kms.ports().grpc(), "the KMS has no gRPC port");
        assertEquals(this.kms.socket(), kms.socket());
        assertEquals(kms.socket(), join.kms().socket(), "the join service dials the KMS's socket");
        assertEquals(Set.of(0), kms.peerUids(), "the KMS answers sextant-join.service's uid, root");
        assertEquals(Optional.of(this.join.getLocalPort()), join.ports().grpc());
        assertFalse(join.kubernetes().enabled());
        assertEquals(Optional.of("device:/dev/tpmrm0"), join.atls().serverTpm());
        assertEquals("control-plane-0:6443", join.apiServerEndpoint());
        assertEquals(List.of("https://127.0.0.1:2379"), join.etcd().endpoints(), "this node's member, on loopback");
        assertEquals(List.of(new EtcdTlsFiles(join.etcd().caFile(), join.etcd().certFile(), join.etcd().keyFile())), probed,
                "the probe proved the join service's own client certificate");
        assertEquals(5, join.controlPlanes(), "the init request's control_planes");
        assertEquals(Optional.of(new JoinServiceConfig.MasterSecret(kms.masterSecretFile(), kms.saltFile())), join.masterSecret(),
                "the KMS's own files: with them the join service admits control planes");
        JoinServiceConfig.InitNode init = join.initNode().orElseThrow();
        assertEquals(DeployInputs.AK, init.akNameHex(), "the init node's AK, bound before the service serves");
        assertEquals("control-plane-0", init.nodeName());
        assertEquals(DeployInputs.DISKS, init.diskUuids(), "the state disk first, then the data volume");
        Path measurements = join.measurements().file();
        MeasurementsFile.verifySet(measurements, Files.readString(join.measurements().publicKeyFile()));
        assertTrue(Files.readString(join.ca().certFile()).startsWith("-----BEGIN CERTIFICATE-----"));
        assertTrue(Files.readString(join.ca().keyFile()).startsWith("-----BEGIN PRIVATE KEY-----"));
        for (Path secretFile : List.of(kms.masterSecretFile(), kms.saltFile(), join.ca().keyFile(), join.measurementSaltFile(),
                join.etcd().keyFile())) {
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(secretFile)), secretFile.toString());
        }
        assertTrue(Files.readString(dir.resolve("hosts")).contains("\tetcd-control-plane-0.internal.sextant\t"),
                "the member's name resolves on the node before etcd starts");
    }

    @Test
    @DisplayName("after a reboot issue etcd's certificates again, start etcd on its data, then the same units from the files init left on the state disk, or say that none are there")
    void restartAfterReboot() throws Exception {
        ClusterServicesException none = assertThrows(ClusterServicesException.class, () -> services().restart());
        assertTrue(none.getMessage().contains("no service configuration"), none.getMessage());
        services().deploy(signedInput());
        Path services = dir.resolve("services");
        String kmsBefore = Files.readString(services.resolve("kms.properties"));
        String argsBefore = Files.readString(services.resolve("etcd.env"));
        String memberBefore = Files.readString(services.resolve("etcd/pki/member/control-plane-0.crt"));
        String clientBefore = Files.readString(services.resolve("etcd/pki/join-service/join-service.crt"));
        Path written = Files.writeString(services.resolve("etcd/data/member-wal"), "etcd's own");
        Files.delete(dir.resolve("hosts")); // /run is empty after a reboot
        commands.clear();
        probed.clear();

        DeployedServices again = services().restart();

        assertEquals(List.of(START_ETCD, START_BOTH), commands);
        assertEquals(EtcdStanding.MEMBER, again.etcd());
        assertTrue(again.summary().contains("started again") && again.summary().contains("issued afresh"), again.summary());
        assertEquals(kmsBefore, Files.readString(services.resolve("kms.properties")), "the services' files are not rewritten");
        assertEquals(argsBefore, Files.readString(services.resolve("etcd.env")), "etcd runs with the same command line");
        assertFalse(memberBefore.equals(Files.readString(services.resolve("etcd/pki/member/control-plane-0.crt"))),
                "the member certificate is issued again");
        assertFalse(clientBefore.equals(Files.readString(services.resolve("etcd/pki/join-service/join-service.crt"))),
                "the join service's certificate is issued again");
        assertEquals("etcd's own", Files.readString(written), "etcd's data dir is left alone");
        assertEquals(1, probed.size(), "etcd was waited for");
        assertTrue(Files.readString(dir.resolve("hosts")).contains("etcd-control-plane-0.internal.sextant"));
    }

    @Test
    @DisplayName("after a reboot into a KMS that serves on a socket, a kms.properties of the loopback KMS is written again: the socket, root as the one caller, the same master-secret files")
    void restartRewritesLoopbackKmsProperties() throws Exception {
        services().deploy(signedInput());
        Path file = dir.resolve("services/kms.properties");
        KmsConfig written = KmsConfig.from(properties("kms.properties"));
        Files.writeString(file, "grpc.server.port=9000\nmicronaut.server.port=9092\nsextant.kms.insecure-allow-remote-callers=false\n"
                + "sextant.kms.master-secret-file=" + written.masterSecretFile() + "\nsextant.kms.salt-file=" + written.saltFile() + "\n");

        services().restart();

        assertEquals(written, KmsConfig.from(properties("kms.properties")));
        String rewritten = Files.readString(file);
        services().restart();
        assertEquals(rewritten, Files.readString(file), "written once; a current file is left as it is");
    }

    private static final Map<String, String> TICKET_MEMBERS = members("control-plane-0", "https://etcd-control-plane-0.internal.sextant:2380",
            "cp-1", "https://etcd-cp-1.internal.sextant:2380");

    /** Name to peer URL, in the order given (the ticket's). */
    private static Map<String, String> members(String... nameAndUrl) {
        Map<String, String> members = new LinkedHashMap<>();
        for (int i = 0; i < nameAndUrl.length; i += 2) {
            members.put(nameAndUrl[i], nameAndUrl[i + 1]);
        }
        return members;
    }

    private ControlPlaneInput joiningInput() throws Exception {
        return DeployInputs.joining("cp-1", TICKET_MEMBERS, DeployInputs.signed(dir.resolve("ticket"), MEASUREMENTS), secret, salt);
    }

    /** etcd's arguments as sextant-etcd.service reads them from etcd.env, by flag. */
    private Map<String, String> etcdArguments() throws Exception {
        Map<String, String> flags = new LinkedHashMap<>();
        String line = EtcdUnitAsProcess.environmentFile(dir.resolve("services/etcd.env")).get(ControlPlaneEtcd.ARGS_VARIABLE);
        for (String argument : line.split(" ")) {
            int eq = argument.indexOf('=');
            flags.put(eq < 0 ? argument : argument.substring(0, eq), eq < 0 ? "" : argument.substring(eq + 1));
        }
        return flags;
    }

    @Test
    @DisplayName("a joining control plane writes what init writes, from its ticket: etcd joins the existing cluster the ticket lists, the join service takes the ticket's measurements and EK CA and the KMS's master-secret files, and claims no init node")
    void joinControlPlane() throws Exception {
        ControlPlaneInput input = joiningInput();
        DeployedServices joined = services().joinControlPlane(input);

        assertEquals(List.of(START_ETCD, START_BOTH), commands, "etcd first, then the KMS and the join service");
        assertEquals(EtcdStanding.MEMBER, joined.etcd());
        Map<String, String> etcd = etcdArguments();
        assertEquals("existing", etcd.get("--initial-cluster-state"));
        assertEquals("control-plane-0=https://etcd-control-plane-0.internal.sextant:2380,cp-1=https://etcd-cp-1.internal.sextant:2380",
                etcd.get("--initial-cluster"));
        assertEquals("cp-1", etcd.get("--name"));
        assertEquals("https://etcd-cp-1.internal.sextant:2380", etcd.get("--initial-advertise-peer-urls"), "the peer URL it asked for");
        assertEquals("https://etcd-cp-1.internal.sextant:2379", etcd.get("--advertise-client-urls"));
        assertEquals(ControlPlaneEtcd.clusterToken(ControlPlaneEtcd.ca(secret, salt)), etcd.get("--initial-cluster-token"),
                "the token every control plane derives from the master secret");

        KmsConfig kms = KmsConfig.from(properties("kms.properties"));
        JoinServiceConfig join = JoinServiceConfig.from(properties("join.properties"));
        assertArrayEquals(secret, Files.readAllBytes(kms.masterSecretFile()), "the ticket's master secret, for the KMS");
        assertArrayEquals(salt, Files.readAllBytes(kms.saltFile()));
        assertEquals(Optional.of(new JoinServiceConfig.MasterSecret(kms.masterSecretFile(), kms.saltFile())), join.masterSecret());
        assertArrayEquals(input.joinMeasurements().getJson().toByteArray(), Files.readAllBytes(join.measurements().file()));
        assertEquals(input.joinMeasurements().getPublicKeyPem(), Files.readString(join.measurements().publicKeyFile()));
        MeasurementsFile.verifySet(join.measurements().file(), Files.readString(join.measurements().publicKeyFile()));
        assertEquals(DeployInputs.EK_CA, Files.readString(join.ekCaFile().orElseThrow()));
        assertArrayEquals(input.measurementSalt(), Files.readAllBytes(join.measurementSaltFile()), "the ticket's measurement salt");
        assertTrue(join.initNode().isEmpty(), "the init node's bindings were claimed at init");
        assertEquals(List.of("https://127.0.0.1:2379"), join.etcd().endpoints(), "its own member, on loopback");
        assertFalse(join.kubernetes().enabled());
        assertTrue(Files.readString(join.ca().certFile()).startsWith("-----BEGIN CERTIFICATE-----"), "a cluster CA of its own");
        for (Path secretFile : List.of(kms.masterSecretFile(), kms.saltFile(), join.ca().keyFile(), join.measurementSaltFile(),
                join.etcd().keyFile())) {
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(secretFile)), secretFile.toString());
        }
    }

    @Test
    @DisplayName("a joined control plane that answers as a learner says so")
    void joinedLearner() throws Exception {
        learner = true;
        DeployedServices joined = services().joinControlPlane(joiningInput());
        assertEquals(EtcdStanding.LEARNER, joined.etcd());
        assertTrue(joined.summary().startsWith("etcd learner at 127.0.0.1:2379, KMS and join service running"), joined.summary());
    }

    @Test
    @DisplayName("after a reboot a joined control plane starts etcd on its data with the etcd.env of its join (existing state, the ticket's members), then its KMS and join service")
    void restartAfterJoin() throws Exception {
        services().joinControlPlane(joiningInput());
        String argsBefore = Files.readString(dir.resolve("services/etcd.env"));
        Files.writeString(dir.resolve("services/etcd/data/member-wal"), "etcd's own");
        Files.delete(dir.resolve("services/etcd.env")); // so that only restart() can have written the one compared
        commands.clear();
        learner = true;

        DeployedServices again = services().restart();

        assertEquals(List.of(START_ETCD, START_BOTH), commands);
        assertEquals(argsBefore, Files.readString(dir.resolve("services/etcd.env")), "the same command line as at the join");
        assertEquals("existing", etcdArguments().get("--initial-cluster-state"));
        assertEquals(EtcdStanding.LEARNER, again.etcd(), "not promoted yet: still a learner");
    }

    @Test
    @DisplayName("a rebooted control plane initialized before etcd came to the nodes starts its KMS and join service without etcd: etcd=none")
    void restartWithoutEtcd() throws Exception {
        services().deploy(signedInput());
        Files.delete(dir.resolve("services/etcd/member.properties"));
        commands.clear();
        DeployedServices again = services().restart();
        assertEquals(List.of(START_BOTH), commands);
        assertEquals(EtcdStanding.NONE, again.etcd());
    }

    @Test
    @DisplayName("a member that answers as a learner is reported as one")
    void learnerReported() throws Exception {
        learner = true;
        assertEquals(EtcdStanding.LEARNER, services().deploy(signedInput()).etcd());
    }

    @Test
    @DisplayName("fail init when etcd never answers, naming its unit and journal, before the KMS or the join service start")
    void etcdNeverAnswers() throws Exception {
        CommandRunner runner = (argv, stdin) -> {
            commands.add(argv);
            return new CommandRunner.Result(0, argv.get(1).equals("status") ? "sextant-etcd.service: Main process exited, status=1/FAILURE" : "", "");
        };
        EtcdProbe silent = (endpoint, tls, timeout) -> {
            throw new IOException("UNAVAILABLE: connection refused at " + endpoint);
        };
        ClusterServicesException e = assertThrows(ClusterServicesException.class,
                () -> services(runner, join.getLocalPort(), Duration.ofSeconds(1), silent).deploy(signedInput()));
        assertTrue(e.getMessage().contains("sextant-etcd.service") && e.getMessage().contains("journalctl -u sextant-etcd.service")
                && e.getMessage().contains("connection refused") && e.getMessage().contains("status=1/FAILURE"), e.getMessage());
        assertFalse(commands.stream().anyMatch(c -> c.contains("sextant-kms.service")), commands.toString());
    }

    @Test
    @DisplayName("with unsigned measurements start etcd and the KMS only, and say why the join service is missing")
    void unsignedMeasurements() throws Exception {
        SignedMeasurements unsigned = SignedMeasurements.newBuilder().setJson(ByteString.copyFromUtf8(MEASUREMENTS)).build();
        String line = services().deploy(input(unsigned, secret, salt)).summary();
        assertEquals(List.of(START_ETCD, List.of("systemctl", "start", "sextant-kms.service")), commands);
        assertTrue(line.contains("join service NOT started") && line.contains("not signed"), line);
        assertFalse(Files.exists(dir.resolve("services/join.properties")));
    }

    @Test
    @DisplayName("refuse measurements whose signature does not verify, before starting anything")
    void badSignature() throws Exception {
        SignedMeasurements tampered = DeployInputs.signed(dir, MEASUREMENTS).toBuilder()
                .setJson(ByteString.copyFromUtf8(MEASUREMENTS.replace("qemu-vtpm", "other"))).build();
        ClusterServicesException e = assertThrows(ClusterServicesException.class, () -> services().deploy(input(tampered, secret, salt)));
        assertTrue(e.getMessage().contains("not a valid signature"), e.getMessage());
        assertEquals(List.of(), commands);
    }

    @Test
    @DisplayName("report a unit that does not start with systemctl's own words")
    void unitFails() throws Exception {
        CommandRunner failing = (argv, stdin) -> new CommandRunner.Result(5, "", "Unit sextant-join.service not found.");
        ClusterServicesException e = assertThrows(ClusterServicesException.class,
                () -> services(failing, join.getLocalPort(), Duration.ofSeconds(1), etcd).deploy(signedInput()));
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
                () -> services(runner, closedPort, Duration.ofMillis(600), etcd).deploy(signedInput()));
        assertTrue(e.getMessage().contains("nothing listens on port " + closedPort) && e.getMessage().contains("status=1/FAILURE"),
                e.getMessage());
    }

    @Test
    @DisplayName("fail init when the KMS never listens on its socket, naming the socket and quoting systemd's status")
    void kmsNeverListens() throws Exception {
        kms.close();
        CommandRunner runner = (argv, stdin) -> new CommandRunner.Result(0,
                argv.get(1).equals("status") ? "sextant-kms.service: Main process exited, code=exited, status=1/FAILURE" : "", "");
        ClusterServicesException e = assertThrows(ClusterServicesException.class,
                () -> services(runner, join.getLocalPort(), Duration.ofMillis(600), etcd).deploy(signedInput()));
        assertTrue(e.getMessage().contains("nothing listens on the KMS socket " + kms.socket()) && e.getMessage().contains("status=1/FAILURE"),
                e.getMessage());
    }

    @Test
    @DisplayName("refuse a node name that cannot name an etcd member, before starting anything")
    void badNodeName() throws Exception {
        ServicesInput good = signedInput();
        ServicesInput bad = new ServicesInput(good.masterSecret(), good.masterSalt(), good.measurementSalt(), good.joinMeasurements(),
                good.ekCaPem(), good.apiServerEndpoint(), good.kubeconfig(), good.initNode(), "Control_Plane 0", 3);
        ClusterServicesException e = assertThrows(ClusterServicesException.class, () -> services().deploy(bad));
        assertTrue(e.getMessage().contains("Control_Plane 0") && e.getMessage().contains("RFC 1123"), e.getMessage());
        assertEquals(List.of(), commands);
    }
}
