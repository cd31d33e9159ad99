package dev.sextant.e2e.cluster;

import dev.sextant.etcd.client.EtcdClient;
import dev.sextant.etcd.pki.EtcdTlsFiles;
import dev.sextant.etcd.testkit.LoopbackPorts;
import dev.sextant.etcd.testkit.TestEtcdCluster;
import com.sun.security.auth.module.UnixSystem;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sextant.serviceconfig.JoinServiceConfig;
import dev.sextant.serviceconfig.KmsConfig;
import dev.sextant.serviceconfig.ServerPorts;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The key service and the join service as `sextant init` would deploy them, but as plain processes
 * because there is no Kubernetes here: the KMS gets the master secret the CLI wrote, the join
 * service gets the KMS, the cluster store (one etcd member with a client certificate of its CA), the
 * Kubernetes API double, a cluster CA, signed measurements, the EK CA and a TPM to attest itself to
 * the nodes with. {@link #close()} stops etcd and keeps its log beside the others.
 */
final class ControlPlaneServices implements AutoCloseable {
    private static final Path SHM = Path.of("/dev/shm");

    private final Procs procs;
    private final Repo repo;
    private final Path dir;
    /** Under /tmp: a socket's path has at most 107 bytes, which a path in the build tree can exceed. */
    private final Path kmsSocket;
    private final LoopbackPorts ports;
    final int joinPort;
    private Path etcdDir;
    private TestEtcdCluster etcd;
    private EtcdClient etcdReader;

    ControlPlaneServices(Procs procs, Repo repo, LoopbackPorts ports, Path clusterDir) throws IOException {
        this.procs = procs;
        this.ports = ports;
        this.joinPort = ports.next();
        this.repo = repo;
        this.dir = Files.createDirectories(clusterDir.resolve("control-plane"));
        this.kmsSocket = Files.createTempDirectory("sextant-e2e-kms").resolve("kms").resolve("kms.sock");
    }

    Path kmsLog() {
        return procs.log("kms");
    }

    Path joinLog() {
        return procs.log("join-api");
    }

    String joinEndpoint() {
        return "127.0.0.1:" + joinPort;
    }

    /**
     * Splits the CLI's master secret JSON into the raw files the services read (as their Secret and
     * ConfigMap mounts would hold them): key and salt for the KMS, measurementSalt for the join service.
     */
    void startKms(Path masterSecretJson) throws IOException, InterruptedException {
        JsonNode secret = new ObjectMapper().readTree(masterSecretJson.toFile());
        Files.write(dir.resolve("mastersecret"), secret.get("key").binaryValue());
        Files.write(dir.resolve("salt"), secret.get("salt").binaryValue());
        Files.write(dir.resolve("measurementSalt"), secret.get("measurementSalt").binaryValue());
        // The join service runs as this test's uid, the one the KMS answers.
        KmsConfig kms = KmsConfig.of(ports.next(), kmsSocket, Set.of((int) new UnixSystem().getUid()), dir.resolve("mastersecret"),
                dir.resolve("salt"));
        procs.start("kms", repo.service("kms", "dev.sextant.kms.Application", systemProperties(kms.toProperties())), Map.of());
    }

    /**
     * One etcd member on 127.0.0.1 (data in /dev/shm: etcd syncs at every commit), its CA seeded at
     * random: here no KMS derives the etcd CA yet, and the join service only needs a client certificate
     * of whatever CA the member trusts.
     */
    void startEtcd() throws IOException, InterruptedException {
        etcdDir = Files.isDirectory(SHM) && Files.isWritable(SHM)
                ? Files.createTempDirectory(SHM, "sextant-e2e-etcd-") : Files.createTempDirectory("sextant-e2e-etcd-");
        byte[] seed = new byte[32];
        new SecureRandom().nextBytes(seed);
        etcd = new TestEtcdCluster(etcdDir, seed, ports);
        etcd.startFirst("cp-0");
        etcdReader = etcd.client("e2e-reader", "cp-0");
    }

    /** A binding the join service wrote ({@code bindings/disk/<uuid>} and so on, docs/cluster-store.md). */
    Optional<String> binding(String path) {
        return etcdReader.get("/sextant/v1/" + path);
    }

    /**
     * {@code measurements} must already be signed ({@code .sig} next to it); the measurement salt is
     * the one init used ({@link #startKms} wrote it).
     */
    void startJoinApi(String kubeApi, Path measurements, Path measurementsKey, Path ekCa, String serverTpm)
            throws IOException, InterruptedException {
        Path pki = Files.createDirectories(dir.resolve("pki"));
        procs.ok("cluster-ca", Duration.ofSeconds(30), List.of("openssl", "req", "-x509", "-newkey", "ec",
                "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", dir.resolve("ca.key").toString(),
                "-out", dir.resolve("ca.crt").toString(), "-subj", "/CN=sextant-e2e-cluster-ca", "-days", "30"));
        JoinServiceConfig defaults = JoinServiceConfig.defaults();
        EtcdTlsFiles etcdTls = etcd.clientTls("join-service");
        JoinServiceConfig config = defaults.toBuilder()
                .ports(ServerPorts.of(joinPort, ports.next()))
                .etcd(new JoinServiceConfig.Etcd(List.of(etcd.member("cp-0").clientUrl()), etcdTls.caFile(), etcdTls.certFile(),
                        etcdTls.keyFile(), defaults.etcd().deadline()))
                .kms(new JoinServiceConfig.Kms(kmsSocket, defaults.kms().deadline()))
                .kubernetes(new JoinServiceConfig.Kubernetes(true, defaults.kubernetes().distribution(),
                        Optional.of(kubeApi), defaults.kubernetes().namespace(), defaults.kubernetes().timeout()))
                .apiServerEndpoint("127.0.0.1:6443")
                .measurementSaltFile(dir.resolve("measurementSalt"))
                .ca(new JoinServiceConfig.Ca(dir.resolve("ca.crt"), dir.resolve("ca.key")))
                .controlPlaneDir(pki)
                .measurements(new JoinServiceConfig.Measurements(measurements, measurementsKey,
                        defaults.measurements().pollInterval()))
                .ekCaFile(ekCa)
                // Nodes verify the join service (mutual aTLS): it quotes with a TPM of the control plane.
                .atls(new JoinServiceConfig.Atls(true, Optional.of(serverTpm), defaults.atls().serverEventLog()))
                .build();
        procs.start("join-api", repo.service("join-api", "dev.sextant.joinapi.Application",
                systemProperties(config.toProperties())), Map.of());
    }

    /** The typed configuration as the JVM's -D options (they win over the service's application.yml). */
    private static List<String> systemProperties(Map<String, String> properties) {
        return properties.entrySet().stream().map(e -> "-D" + e.getKey() + "=" + e.getValue()).toList();
    }

    @Override
    public void close() throws InterruptedException, IOException {
        Files.deleteIfExists(kmsSocket);
        Files.deleteIfExists(kmsSocket.getParent());
        Files.deleteIfExists(kmsSocket.getParent().getParent());
        if (etcd == null) {
            return;
        }
        etcd.close();
        Path log = etcdDir.resolve("cp-0").resolve("etcd.log");
        if (Files.exists(log)) {
            Files.copy(log, procs.log("etcd"), StandardCopyOption.REPLACE_EXISTING);
        }
        try (Stream<Path> files = Files.walk(etcdDir)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }

    void awaitReady() throws InterruptedException {
        Waits.until(Duration.ofSeconds(60), "the KMS socket", kmsLog(), () -> Files.exists(kmsSocket));
        Waits.port(Duration.ofSeconds(60), "the join service gRPC port", joinLog(), joinPort);
    }
}
