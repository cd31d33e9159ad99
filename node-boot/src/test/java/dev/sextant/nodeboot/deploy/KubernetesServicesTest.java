package dev.sextant.nodeboot.deploy;

import dev.sextant.etcd.process.EtcdMemberConfig;
import static dev.sextant.nodeboot.deploy.DeployInputs.MEASUREMENTS;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import dev.sextant.clusterservices.ClusterServices;
import dev.sextant.clusterservices.KubeApiDouble;
import dev.sextant.diskcrypt.CommandRunner;
import dev.sextant.etcd.client.EndpointStatus;
import dev.sextant.etcd.pki.EtcdTlsFiles;
import dev.sextant.nodeboot.kubernetes.ExternalEtcd;
import dev.sextant.proto.v1.SignedMeasurements;
import io.kubernetes.client.openapi.apis.AppsV1Api;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1DaemonSet;
import io.kubernetes.client.openapi.models.V1Secret;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.security.SignatureException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@DisplayName("Cluster services on a control plane where Kubernetes runs")
class KubernetesServicesTest {
    private static final List<String> START_ETCD = List.of("systemctl", "start", ControlPlaneEtcd.UNIT);

    @TempDir
    Path dir;

    private final byte[] secret = random();
    private final byte[] salt = random();
    private final KubeApiDouble api = new KubeApiDouble();
    private final List<List<String>> commands = new ArrayList<>();
    private final CommandRunner systemctl = (argv, stdin) -> {
        commands.add(argv);
        return new CommandRunner.Result(0, "", "");
    };
    /** What the probe was asked with; the member answers as a leader of its own. */
    private final List<EtcdTlsFiles> probed = new ArrayList<>();
    private final EtcdProbe probe = (endpoint, tls, timeout) -> {
        probed.add(tls);
        return new EndpointStatus(endpoint, 7, 7, 2, 4, 4, false, "3.4.23", List.of());
    };

    @AfterEach
    void close() {
        api.close();
    }

    private static byte[] random() {
        byte[] b = new byte[32];
        new SecureRandom().nextBytes(b);
        return b;
    }

    private Path servicesDir() {
        return dir.resolve("services");
    }

    private KubernetesServices services() {
        return new KubernetesServices(new KubernetesServicesSettings("sextant/join-service@sha256:" + "a".repeat(64),
                "sextant/kms@sha256:" + "b".repeat(64), 30090),
                new NodeLocalSettings(servicesDir(), Path.of("/run/sextant/kms/kms.sock"), 9090, "", Duration.ofSeconds(5), 2379, 2380, "", 0, 0, "sextant",
                        dir.resolve("hosts"), EtcdMemberConfig.DEFAULT_HEARTBEAT), systemctl, probe);
    }

    private ServicesInput input(SignedMeasurements measurements) throws Exception {
        return DeployInputs.input(measurements, secret, salt).withKubeconfig(Files.readAllBytes(api.kubeconfig(dir)));
    }

    private ServicesInput signedInput() throws Exception {
        return input(DeployInputs.signed(dir, MEASUREMENTS));
    }

    @Test
    @DisplayName("before Kubernetes: this control plane's etcd member starts from sextant-etcd.service and answers the join service's certificate; Kubernetes is given the member on loopback and a client certificate of its own")
    void etcdBeforeKubernetes() throws Exception {
        KubernetesDatastore datastore = services().startEtcd(signedInput());

        assertEquals(List.of(START_ETCD), commands, "the etcd unit only: the KMS and the join service come as pods later");
        assertEquals(EtcdStanding.MEMBER, datastore.standing());
        Path join = servicesDir().resolve("etcd/pki/join-service");
        assertEquals(List.of(new EtcdTlsFiles(join.resolve("ca.crt"), join.resolve("join-service.crt"), join.resolve("join-service.key"))), probed,
                "the member answered the join service's certificate, which its pod will be given");
        ExternalEtcd etcd = datastore.etcd();
        assertEquals("https://127.0.0.1:2379", etcd.endpoint(), "k3s runs on the node, beside the member");
        assertEquals(servicesDir().resolve("etcd/pki/k3s"), etcd.certFile().getParent(), "on the encrypted state disk");
        assertTrue(Files.exists(servicesDir().resolve("etcd.env")), "sextant-etcd.service's arguments");
    }

    @Test
    @DisplayName("Kubernetes' etcd client certificate: CN k3s, a client certificate issued by the etcd CA derived from the master secret (not another's), its key 0600; the CA file is that CA")
    void kubernetesClientCertificate() throws Exception {
        ExternalEtcd etcd = services().startEtcd(signedInput()).etcd();

        X509Certificate ca = ControlPlaneEtcd.ca(secret, salt).certificate();
        X509Certificate k3s = certificate(etcd.certFile());
        assertEquals(ca, certificate(etcd.caFile()));
        k3s.verify(ca.getPublicKey());
        assertThrows(SignatureException.class, () -> k3s.verify(ControlPlaneEtcd.ca(random(), salt).certificate().getPublicKey()),
                "a CA of another master secret did not issue it");
        assertEquals("CN=k3s", k3s.getSubjectX500Principal().getName());
        assertEquals(List.of("1.3.6.1.5.5.7.3.2"), k3s.getExtendedKeyUsage(), "client use only");
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(etcd.keyFile())));
        assertArrayEquals(secret, Files.readAllBytes(servicesDir().resolve("kms/mastersecret")),
                "kept on the state disk, so every later start issues the certificates afresh");
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(servicesDir().resolve("kms/mastersecret"))));
    }

    @Test
    @DisplayName("once Kubernetes runs: one DaemonSet whose pod runs the join service and the KMS with the given images, and the Secret with the join service's etcd client certificate the member answered")
    void appliedWithEtcdClientSecret() throws Exception {
        KubernetesServices services = services();
        services.startEtcd(signedInput());
        DeployedServices deployed = services.deploy(signedInput());

        assertEquals(EtcdStanding.MEMBER, deployed.etcd());
        String line = deployed.summary();
        assertTrue(line.contains("applied through the Kubernetes API") && line.contains("NodePort 30090"), line);
        List<V1DaemonSet> daemonSets = new AppsV1Api(api.client()).listNamespacedDaemonSet("kube-system").execute().getItems();
        assertEquals(List.of("sextant/join-service@sha256:" + "a".repeat(64), "sextant/kms@sha256:" + "b".repeat(64)), daemonSets.stream()
                .flatMap(d -> d.getSpec().getTemplate().getSpec().getContainers().stream()).map(c -> c.getImage()).sorted().toList());
        V1Secret etcdClient = new CoreV1Api(api.client()).readNamespacedSecret(ClusterServices.ETCD_CLIENT_SECRET, "kube-system").execute();
        Path pki = servicesDir().resolve("etcd/pki/join-service");
        Map<String, byte[]> data = etcdClient.getData();
        assertArrayEquals(Files.readAllBytes(pki.resolve("ca.crt")), data.get("ca.crt"));
        assertArrayEquals(Files.readAllBytes(pki.resolve("join-service.crt")), data.get("join-service.crt"));
        assertArrayEquals(Files.readAllBytes(pki.resolve("join-service.key")), data.get("join-service.key"));
        assertEquals(2, probed.size(), "asked again before the certificate went to the pod");
    }

    @Test
    @DisplayName("refuse unsigned measurements with a reason, before touching the API")
    void unsignedMeasurements() throws Exception {
        KubernetesServices services = services();
        services.startEtcd(signedInput());
        SignedMeasurements unsigned = SignedMeasurements.newBuilder().setJson(ByteString.copyFromUtf8("{}")).build();
        ClusterServicesException e = assertThrows(ClusterServicesException.class, () -> services.deploy(input(unsigned)));
        assertTrue(e.getMessage().contains("measurementsSignature"), e.getMessage());
        assertEquals(0, api.writes());
    }

    @Test
    @DisplayName("after a reboot the member starts again on its data with certificates issued afresh, before Kubernetes; a node without a member (initialized before) starts none")
    void restartedBeforeKubernetes() throws Exception {
        assertTrue(services().restartEtcd().isEmpty());
        assertEquals(List.of(), commands);

        ExternalEtcd first = services().startEtcd(signedInput()).etcd();
        byte[] firstCertificate = Files.readAllBytes(first.certFile());
        commands.clear();
        KubernetesDatastore again = services().restartEtcd().orElseThrow();

        assertEquals(List.of(START_ETCD), commands);
        assertEquals(first, again.etcd(), "the same files, which config.yaml names");
        assertTrue(!java.util.Arrays.equals(firstCertificate, Files.readAllBytes(again.etcd().certFile())), "issued afresh");
        certificate(again.etcd().certFile()).verify(ControlPlaneEtcd.ca(secret, salt).certificate().getPublicKey());
    }

    private static X509Certificate certificate(Path file) throws Exception {
        try (InputStream in = Files.newInputStream(file)) {
            return (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
        }
    }
}
