package dev.sextant.e2e.cluster;

import dev.sextant.localcluster.qemu.FreePort;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sextant.serviceconfig.JoinServiceConfig;
import dev.sextant.serviceconfig.KmsConfig;
import dev.sextant.serviceconfig.ServerPorts;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The key service and the join service as `sextant init` would deploy them, but as plain processes
 * because there is no Kubernetes here: the KMS gets the master secret the CLI wrote, the join
 * service gets the KMS, the Kubernetes API double, a cluster CA, signed measurements, the EK CA and
 * a TPM to attest itself to the nodes with.
 */
final class ControlPlaneServices {
    private final Procs procs;
    private final Repo repo;
    private final Path dir;
    final int kmsPort = FreePort.pick();
    final int joinPort = FreePort.pick();

    ControlPlaneServices(Procs procs, Repo repo, Path clusterDir) throws IOException {
        this.procs = procs;
        this.repo = repo;
        this.dir = Files.createDirectories(clusterDir.resolve("control-plane"));
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
        KmsConfig kms = new KmsConfig(ServerPorts.of(kmsPort, FreePort.pick()), dir.resolve("mastersecret"),
                dir.resolve("salt"), false);
        procs.start("kms", repo.service("kms", "dev.sextant.kms.Application", systemProperties(kms.toProperties())), Map.of());
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
        JoinServiceConfig config = defaults.toBuilder()
                .ports(ServerPorts.of(joinPort, FreePort.pick()))
                .kms(new JoinServiceConfig.Kms("127.0.0.1:" + kmsPort, defaults.kms().deadline()))
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

    void awaitReady() throws InterruptedException {
        Waits.port(Duration.ofSeconds(60), "the KMS gRPC port", kmsLog(), kmsPort);
        Waits.port(Duration.ofSeconds(60), "the join service gRPC port", joinLog(), joinPort);
    }
}
