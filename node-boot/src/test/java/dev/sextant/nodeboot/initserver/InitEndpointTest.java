package dev.sextant.nodeboot.initserver;

import com.google.protobuf.ByteString;
import dev.sextant.atls.AtlsContexts;
import dev.sextant.atls.OwnAttestation;
import dev.sextant.atls.ServerVerification;
import dev.sextant.attestation.Variant;
import dev.sextant.attestation.policy.ExpectedValue;
import dev.sextant.attestation.policy.Measurements;
import dev.sextant.attestation.testkit.ScratchDirs;
import dev.sextant.attestation.testkit.Tools;
import dev.sextant.attestation.tpmstructures.TpmAlg;
import dev.sextant.attestation.verify.AkTrust;
import dev.sextant.attestation.verify.DocumentVerifier;
import dev.sextant.attestation.verify.VerifierPolicy;
import dev.sextant.diskcrypt.CommandRunner;
import dev.sextant.diskcrypt.ProcessCommandRunner;
import dev.sextant.etcd.testkit.EtcdInstalled;
import dev.sextant.etcd.testkit.LoopbackPorts;
import dev.sextant.nodeboot.deploy.EtcdUnitAsProcess;
import dev.sextant.diskcrypt.StateDisk;
import dev.sextant.diskcrypt.StateDiskSettings;
import dev.sextant.nodeboot.nodelock.NodeLock;
import dev.sextant.nodeboot.kubernetes.StandInK3s;
import dev.sextant.clusterservices.KubeApiDouble;
import dev.sextant.proto.v1.InitRequest;
import dev.sextant.proto.v1.SignedMeasurements;
import io.kubernetes.client.openapi.apis.AppsV1Api;
import dev.sextant.proto.v1.InitResponse;
import dev.sextant.proto.v1.InitServiceGrpc;
import dev.sextant.proto.v1.KubernetesSettings;
import dev.sextant.tpm.command.TpmClient;
import dev.sextant.tpmmanufacturer.testkit.Swtpm;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.NettyChannelBuilder;
import io.micronaut.grpc.server.GrpcEmbeddedServer;
import io.micronaut.test.annotation.MockBean;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import io.micronaut.test.support.TestPropertyProvider;
import jakarta.inject.Inject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The first node's InitService over real server-attested aTLS, a real swtpm, real cryptsetup, a real etcd
 * member run from the image's unit ({@link EtcdUnitAsProcess} stands in for systemd) and a stand-in k3s.
 * Without swtpm, cryptsetup or etcd the whole class is skipped, and says which tool is missing: a node
 * always has its state disk, and Kubernetes keeps its state in the cluster's etcd.
 */
@MicronautTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class InitEndpointTest implements TestPropertyProvider {
    private static final byte[] INIT_SECRET = "correct horse battery staple 32b".getBytes();
    private static final byte[] MASTER = new byte[32];
    private static final byte[] SALT = new byte[32];
    private static final byte[] MEASUREMENT_SALT = new byte[32];

    private Swtpm swtpm;
    private Path dir;
    private StandInK3s k3s;
    private final KubeApiDouble kubeApi = new KubeApiDouble();
    private EtcdUnitAsProcess systemd;
    private int etcdClientPort;
    /** How many times k3s had run when etcd's unit was started. */
    private final List<Integer> k3sRunsAtEtcdStart = new ArrayList<>();

    /** systemctl goes to the stand-in systemd, which runs etcd; everything else (cryptsetup) runs for real. */
    @MockBean(ProcessCommandRunner.class)
    CommandRunner commands() {
        ProcessCommandRunner real = new ProcessCommandRunner();
        return (argv, stdin) -> {
            if (!argv.get(0).equals("systemctl")) {
                return real.run(argv, stdin);
            }
            if (argv.get(1).equals("start") && argv.contains("sextant-etcd.service")) {
                k3sRunsAtEtcdStart.add(k3s.invocations().size());
            }
            return systemd.run(argv, stdin);
        };
    }

    @Inject
    GrpcEmbeddedServer server;
    @Inject
    TpmClient tpm;
    @Inject
    NodeLock lock;

    private ManagedChannel channel;

    @Override
    public Map<String, String> getProperties() {
        Swtpm.assumeAvailable();
        Tools.assumeInstalled("cryptsetup");
        EtcdInstalled.require();
        try {
            swtpm = Swtpm.provisioned();
            swtpm.releaseClient();
            dir = Files.createTempDirectory("sextant-init-test-");
            // k3s "starts" and hands over a kubeconfig naming the API double, where init applies the cluster services.
            k3s = StandInK3s.create(dir, 0, Files.readString(kubeApi.kubeconfig(dir)));
            Files.writeString(dir.resolve("hash"), InitSecretHash.format(new byte[16], INIT_SECRET));
            Files.writeString(dir.resolve("node.log"), "bootstrapper: the log an operator gets after a failure\n");
            Map<String, String> p = new HashMap<>(Map.of("sextant.tpm.address", swtpm.tpmArg(),
                    "sextant.tpm.event-log", "/nonexistent", "sextant.init.secret-hash-file", dir.resolve("hash").toString(),
                    "sextant.init.log-file", dir.resolve("node.log").toString(), "sextant.init.use-journalctl", "false",
                    "sextant.init.node-name", "node-a", "sextant.failure.reboot-delay", "disabled",
                    "sextant.failure.console", dir.resolve("console").toString()));
            p.putAll(Map.of("sextant.k3s.binary", k3s.binary().toString(),
                    "sextant.k3s.config-file", k3s.settings().configFile().toString(),
                    "sextant.k3s.kubeconfig", k3s.settings().kubeconfig().toString(),
                    "sextant.bootstrap.exit-after-bootstrap", "false",
                    // Cluster-service images are taken by digest only.
                    "sextant.services.kubernetes.join-image", "sextant/join-service@sha256:" + "a".repeat(64),
                    "sextant.services.kubernetes.kms-image", "sextant/kms@sha256:" + "b".repeat(64)));
            p.putAll(stateDisk());
            // The node's services directory, hosts file and etcd ports are the test's own.
            systemd = new EtcdUnitAsProcess(dir.resolve("services"), dir.resolve("etcd.log"));
            LoopbackPorts ports = new LoopbackPorts();
            etcdClientPort = ports.next();
            p.putAll(Map.of("sextant.services.dir", dir.resolve("services").toString(),
                    "sextant.services.hosts-file", dir.resolve("hosts").toString(),
                    "sextant.services.etcd-client-port", Integer.toString(etcdClientPort),
                    "sextant.services.etcd-peer-port", Integer.toString(ports.next()),
                    "sextant.services.ready-timeout", "30s"));
            return p;
        } catch (Exception e) {
            throw new IllegalStateException("preparing the node", e);
        }
    }

    /** A real LUKS2 image, formatted as at first boot (formatting needs no device-mapper). */
    private Map<String, String> stateDisk() throws Exception {
        Path image = dir.resolve("state.img");
        var settings = new StateDiskSettings(image, dir.resolve("luks"), dir.resolve("state.key"), 8192, 4);
        try (RandomAccessFile file = new RandomAccessFile(image.toFile(), "rw")) {
            file.setLength(32L << 20);
        }
        Files.write(settings.keyFile(), new StateDisk(settings, new ProcessCommandRunner()).formatWithRandomPassphrase());
        // Opening needs device-mapper, which this host lacks: re-key only here; the QEMU boots
        // (mini e2e) open and mount the disk, and StateDiskTest pins the commands.
        return Map.of("sextant.state-disk.device", image.toString(), "sextant.state-disk.work-dir",
                settings.workDir().toString(), "sextant.state-disk.key-file", settings.keyFile().toString(),
                "sextant.state-disk.pbkdf-memory-kib", "8192", "sextant.state-disk.pbkdf-iterations", "4",
                "sextant.state-disk.mount.enabled", Boolean.toString(Files.isDirectory(Path.of("/sys/module/dm_crypt"))),
                "sextant.state-disk.mount.mount-point", dir.resolve("state").toString());
    }

    @BeforeAll
    void connect() throws Exception {
        // PCR 16 (debug) stays zero whatever init does to PCR 15, so one policy serves every test.
        var pcr16 = new Measurements(Variant.QEMU_VTPM, new TreeMap<>(Map.of(16, new ExpectedValue(new byte[32], false))));
        var verifier = new DocumentVerifier(new VerifierPolicy(pcr16, AkTrust.ekCa(List.of(swtpm.ca().certificate()))));
        channel = NettyChannelBuilder.forAddress("127.0.0.1", server.getPort())
                .sslContext(AtlsContexts.client(OwnAttestation.none(), ServerVerification.by(verifier))).build();
    }

    @AfterAll
    void stop() throws Exception {
        if (channel != null) {
            channel.shutdownNow();
        }
        if (swtpm != null) {
            swtpm.close();
        }
        kubeApi.close();
        if (systemd != null) {
            systemd.close();
        }
        ScratchDirs.delete(dir);
    }

    private static InitRequest.Builder good() {
        return InitRequest.newBuilder().setInitSecret(ByteString.copyFrom(INIT_SECRET))
                .setMasterSecret(ByteString.copyFrom(MASTER)).setMasterSalt(ByteString.copyFrom(SALT))
                .setMeasurementSalt(ByteString.copyFrom(MEASUREMENT_SALT)).setClusterName("demo")
                .setKubernetes(KubernetesSettings.newBuilder().setServiceCidr("10.43.0.0/16"))
                .addApiServerCertSans("api.demo.test").setJoinMeasurements(JOIN_MEASUREMENTS)
                .setEkCaPem("-----BEGIN CERTIFICATE-----\n(ek ca)\n-----END CERTIFICATE-----\n");
    }

    /** What the join service will enforce (content irrelevant here: the API double stores what init applies). */
    private static final SignedMeasurements JOIN_MEASUREMENTS = SignedMeasurements.newBuilder()
            .setJson(ByteString.copyFromUtf8("{}")).setSignature(ByteString.copyFromUtf8("c2ln\n"))
            .setPublicKeyPem("-----BEGIN PUBLIC KEY-----\n").build();

    /** Everything the node streamed before the end (or the error). */
    private List<InitResponse> call(InitRequest request, List<InitResponse> received) {
        InitServiceGrpc.newBlockingStub(channel).init(request).forEachRemaining(received::add);
        return received;
    }

    @Test
    @Order(1)
    @DisplayName("a wrong init secret is refused with PERMISSION_DENIED: no progress, no journal, no lock")
    void wrongSecret() throws Exception {
        List<InitResponse> received = new ArrayList<>();
        var e = assertThrows(StatusRuntimeException.class,
                () -> call(good().setInitSecret(ByteString.copyFromUtf8("guess")).build(), received));
        assertEquals(Status.Code.PERMISSION_DENIED, e.getStatus().getCode());
        assertEquals("wrong init secret", e.getStatus().getDescription());
        assertEquals(List.of(), received, "the caller got nothing at all");
        assertEquals(Optional.empty(), lock.holder(), "the node lock is still free");
        assertArrayEquals(new byte[32], tpm.pcr().readAll(TpmAlg.SHA256).get(15), "PCR 15 is unmarked");
    }

    @Test
    @Order(2)
    @DisplayName("bad fields are refused with INVALID_ARGUMENT listing every problem")
    void badFields() {
        var request = good().setMasterSecret(ByteString.copyFrom(new byte[8])).setMeasurementSalt(ByteString.EMPTY)
                .setClusterName("Not_A_Label").addApiServerCertSans("bad host!").build();
        var e = assertThrows(StatusRuntimeException.class, () -> call(request, new ArrayList<>()));
        assertEquals(Status.Code.INVALID_ARGUMENT, e.getStatus().getCode());
        String d = e.getStatus().getDescription();
        assertTrue(d.contains("master_secret must be at least 16 bytes (got 8), or set kms_uri"), d);
        assertTrue(d.contains("measurement_salt must be 32 bytes (got 0)"), d);
        assertTrue(d.contains("cluster_name 'Not_A_Label' is not an RFC 1123 label"), d);
        assertTrue(d.contains("'bad host!' is neither a hostname nor an IP address"), d);
    }

    @Test
    @Order(3)
    @DisplayName("a good init streams progress, re-keys the disk, starts k3s and ends with the kubeconfig and cluster ID")
    void goodInit() throws Exception {
        List<InitResponse> received = call(good().build(), new ArrayList<>());
        InitResponse last = received.get(received.size() - 1);
        assertTrue(last.hasSuccess(), received.toString());
        List<String> steps = received.stream().filter(InitResponse::hasProgress).map(r -> r.getProgress().getStep()).toList();
        assertEquals(List.of("lock", "state-disk", "etcd", "kubernetes", "cluster-services"), steps);
        assertEquals(List.of(0), k3sRunsAtEtcdStart, "etcd's unit started once, before k3s ran");

        byte[] measurementSecret = new ClusterKeys(MASTER, SALT).measurementSecret();
        byte[] clusterId = ClusterKeys.clusterId(measurementSecret, MEASUREMENT_SALT);
        assertArrayEquals(clusterId, last.getSuccess().getClusterId().toByteArray());
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        sha.update(new byte[32]);
        assertArrayEquals(sha.digest(MessageDigest.getInstance("SHA-256").digest(clusterId)),
                tpm.pcr().readAll(TpmAlg.SHA256).get(15), "PCR 15 carries the cluster ID event");
        assertTrue(last.getSuccess().getKubeconfig().toStringUtf8().contains("kind: Config"));
        assertEquals(1, new AppsV1Api(kubeApi.client()).listNamespacedDaemonSet("kube-system").execute().getItems().size(),
                "the join service's DaemonSet (its pod runs the KMS beside it) was applied through the Kubernetes API");
        assertEquals(List.of("server --config " + k3s.settings().configFile()), k3s.invocations(),
                "no --cluster-init: k3s' own embedded etcd stays off");
        String config = Files.readString(k3s.configCopy());
        assertTrue(config.contains("- \"api.demo.test\""));
        Path pki = dir.resolve("services/etcd/pki/k3s");
        assertTrue(config.contains("datastore-endpoint: \"https://127.0.0.1:" + etcdClientPort + "\"")
                && config.contains("datastore-certfile: \"" + pki.resolve("k3s.crt") + "\"")
                && config.contains("datastore-keyfile: \"" + pki.resolve("k3s.key") + "\"")
                && config.contains("datastore-cafile: \"" + pki.resolve("ca.crt") + "\""), config);
        assertEquals(1, new io.kubernetes.client.openapi.apis.CoreV1Api(kubeApi.client()).listNamespacedSecret("kube-system").execute()
                .getItems().stream().filter(secret -> secret.getMetadata().getName().equals("sextant-join-etcd-client")).count(),
                "the join service's etcd client certificate went to its pod");
        var runner = new ProcessCommandRunner();
        String uuid = runner.run(List.of("cryptsetup", "luksUUID", dir.resolve("state.img").toString()), new byte[0])
                .stdout().trim();
        byte[] diskKey = new ClusterKeys(MASTER, SALT).diskKey(uuid);
        assertEquals(0, runner.run(List.of("cryptsetup", "open", "--test-passphrase", "--key-file", "-",
                dir.resolve("state.img").toString()), diskKey).exitCode(), "the cluster-derived key opens the disk");
    }

    @Test
    @Order(4)
    @DisplayName("init is one-shot: a second init with the right secret is refused with FAILED_PRECONDITION on the initialized disk, nothing streamed")
    void secondInitIsRefused() {
        List<InitResponse> received = new ArrayList<>();
        var e = assertThrows(StatusRuntimeException.class, () -> call(good().build(), received));
        assertEquals(Status.Code.FAILED_PRECONDITION, e.getStatus().getCode());
        assertTrue(e.getStatus().getDescription().contains("already holds an initialized cluster disk"), e.getMessage());
        assertEquals(List.of(), received, "no progress: nothing ran");
    }
}
