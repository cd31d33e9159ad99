package dev.sextant.e2e.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

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
    final int kmsPort = Waits.freePort();
    final int joinPort = Waits.freePort();

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
        procs.start("kms", repo.service("kms", "dev.sextant.kms.Application", List.of()), Map.of(
                "SEXTANT_KMS_MASTER_SECRET_FILE", dir.resolve("mastersecret").toString(),
                "SEXTANT_KMS_SALT_FILE", dir.resolve("salt").toString(),
                "SEXTANT_KMS_GRPC_PORT", Integer.toString(kmsPort),
                "SEXTANT_KMS_HTTP_PORT", Integer.toString(Waits.freePort())));
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
        List<String> props = List.of("-Dsextant.join.kms.endpoint=127.0.0.1:" + kmsPort,
                "-Dsextant.join.kubernetes.base-path=" + kubeApi,
                "-Dsextant.join.api-server-endpoint=127.0.0.1:6443",
                "-Dsextant.join.measurement-salt-file=" + dir.resolve("measurementSalt"),
                "-Dsextant.join.ca.cert-file=" + dir.resolve("ca.crt"), "-Dsextant.join.ca.key-file=" + dir.resolve("ca.key"),
                "-Dsextant.join.control-plane-dir=" + pki,
                "-Dsextant.join.measurements.file=" + measurements,
                "-Dsextant.join.measurements.public-key-file=" + measurementsKey,
                "-Dsextant.join.ek-ca-file=" + ekCa, "-Dsextant.join.atls.enabled=true",
                // Nodes verify the join service (mutual aTLS): it quotes with a TPM of the control plane.
                "-Dsextant.join.atls.server-tpm=" + serverTpm);
        procs.start("join-api", repo.service("join-api", "dev.sextant.joinapi.Application", props), Map.of(
                "SEXTANT_JOIN_GRPC_PORT", Integer.toString(joinPort),
                "SEXTANT_JOIN_HTTP_PORT", Integer.toString(Waits.freePort())));
    }

    void awaitReady() throws InterruptedException {
        Waits.port(Duration.ofSeconds(60), "the KMS gRPC port", kmsLog(), kmsPort);
        Waits.port(Duration.ofSeconds(60), "the join service gRPC port", joinLog(), joinPort);
    }
}
