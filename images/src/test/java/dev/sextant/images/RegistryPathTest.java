package dev.sextant.images;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.sextant.atls.AtlsContexts;
import dev.sextant.atls.OwnAttestation;
import dev.sextant.atls.ServerVerification;
import dev.sextant.attestation.testkit.FreePorts;
import dev.sextant.attestation.testkit.SoftwareTpmAttester;
import dev.sextant.attestation.testkit.TestPki;
import dev.sextant.grpcsupport.unix.UnixSocketChannel;
import dev.sextant.proto.v1.GetDataKeyRequest;
import dev.sextant.proto.v1.IssueJoinTicketRequest;
import dev.sextant.proto.v1.JoinServiceGrpc;
import dev.sextant.proto.v1.KeyServiceGrpc;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.NettyChannelBuilder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The registry path: Jib pushes both service images to a local registry, Docker pulls and runs
 * them, and each container answers over gRPC and on /health.
 */
@Tag("containers")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@DisplayName("Service images travel Jib → registry → Docker and serve")
class RegistryPathTest {
    private static final Duration START = Duration.ofSeconds(90);
    private final Path build = Path.of(System.getProperty("sextant.build.dir", "target")).toAbsolutePath();
    private final Path work = build.resolve("registry-path");
    private final String suffix = Long.toString(ProcessHandle.current().pid());
    private LocalRegistry registry;
    private DockerDaemon docker;
    private String kmsImage;
    private String joinImage;

    @BeforeAll
    void pushAndPull() throws Exception {
        Path base = Path.of(System.getProperty("sextant.jre.base", "../out/jre-base/jre-base.tar")).toAbsolutePath();
        assumeTrue(Files.isRegularFile(base), () -> skip("no JRE base tar at " + base + " (run scripts/build-jre-base.sh out/jre-base)"));
        for (String tool : new String[] {"docker", "docker-registry", "openssl"}) {
            assumeTrue(Command.onPath(tool), () -> skip(tool + " is not installed (scripts/setup.sh installs it)"));
        }
        boolean canStart = Command.onPath("dockerd") && "root".equals(System.getProperty("user.name"));
        assumeTrue(canStart || DockerDaemon.serverVersion().isPresent(),
                () -> skip("no Docker daemon answers and this user cannot start dockerd"));
        registry = LocalRegistry.start(work.resolve("registry"));
        docker = DockerDaemon.ensure(work.resolve("dockerd.log"));
        kmsImage = registry.address() + "/sextant/kms:test";
        joinImage = registry.address() + "/sextant/join-service:test";

        long t0 = System.nanoTime();
        JibPush.push(Path.of(System.getProperty("sextant.repo", "..")), base, registry.address(), "test",
                work.resolve("jib-build.log"));
        long t1 = System.nanoTime();
        Docker.pull(kmsImage);
        Docker.pull(joinImage);
        System.out.printf("images: jib:build + push of both %.1f s, docker pull of both %.1f s%n",
                (t1 - t0) / 1e9, (System.nanoTime() - t1) / 1e9);
        for (String image : new String[] {kmsImage, joinImage}) {
            String repository = image.substring(image.indexOf('/') + 1, image.lastIndexOf(':'));
            System.out.printf("images: %s: %.1f MB in the registry (compressed), %.1f MB unpacked, digest %s%n", image,
                    registry.compressedSize(repository, "test") / 1e6,
                    Long.parseLong(Docker.inspect(image, "{{.Size}}")) / 1e6, Docker.inspect(image, "{{index .RepoDigests 0}}"));
        }
    }

    @AfterAll
    void cleanUp() throws Exception {
        if (registry == null) {
            return;
        }
        Docker.removeQuietly("container", "sextant-it-kms-" + suffix, "sextant-it-join-" + suffix);
        Docker.removeQuietly("image", kmsImage, joinImage);
        if (docker != null) {
            docker.close();
        }
        registry.close();
    }

    @Test
    @DisplayName("both images run as uid 10001 with Jib's reproducible epoch timestamp and the app's entrypoint")
    void imageConfig() throws Exception {
        assertEquals("10001:10001", Docker.inspect(kmsImage, "{{.Config.User}}"));
        assertEquals("10001:10001", Docker.inspect(joinImage, "{{.Config.User}}"));
        assertTrue(Docker.inspect(kmsImage, "{{.Created}}").startsWith("1970-01-01"));
        assertTrue(Docker.inspect(joinImage, "{{json .Config.Entrypoint}}").contains("dev.sextant.joinapi.Application"));
    }

    @Test
    @DisplayName("no file in either image is setuid or setgid: the join service's privileged, non-root container has no binary that makes it root")
    void noSetuidFiles() throws Exception {
        for (String image : new String[] {kmsImage, joinImage}) {
            assertEquals("", Docker.runAsRoot(image, "/usr/bin/find", "/", "-xdev", "-type", "f", "-perm", "/6000"), image);
        }
    }

    @Test
    @DisplayName("the KMS container is healthy and derives the golden-vector key from its mounted master secret, on its Unix socket")
    void kmsServes() throws Exception {
        String name = "sextant-it-kms-" + suffix;
        int http = FreePorts.loopback(1)[0];
        Path secrets = ServiceFiles.kms(work.resolve("kms-config"));
        // The pod's emptyDir, as a host directory the container's uid (10001) may make its socket directory in.
        Path run = Files.createTempDirectory("sextant-it-kms-run");
        Files.setPosixFilePermissions(run, PosixFilePermissions.fromString("rwxrwxrwx"));
        long t0 = System.nanoTime();
        // The KMS has no gRPC port to publish: this test (root on the host) calls it on its socket, as the join
        // service does in the pod, so the KMS is told to answer uid 0.
        Docker.run(name, kmsImage, Map.of(http, 9091), Map.of(secrets.toString(), "/var/config"), Map.of(run.toString(), "/run/sextant"),
                Map.of("SEXTANT_KMS_HTTP_HOST", "0.0.0.0", "SEXTANT_KMS_PEER_UIDS", "0"));
        String health = Health.await(http, START, () -> Docker.logs(name));
        long served = System.nanoTime() - t0;
        try (UnixSocketChannel socket = new UnixSocketChannel(run.resolve("kms/kms.sock"))) {
            byte[] key = KeyServiceGrpc.newBlockingStub(socket.channel()).withDeadlineAfter(10, TimeUnit.SECONDS)
                    .getDataKey(GetDataKeyRequest.newBuilder().setDataKeyId("measurementSecret").setLength(32).build())
                    .getDataKey().toByteArray();
            assertEquals(ServiceFiles.KMS_GOLDEN_KEY, HexFormat.of().formatHex(key));
        }
        assertTrue(health.contains("UP"), health);
        System.out.printf("images: kms container start-to-serving (docker run → /health 200) %.2f s%n", served / 1e9);
    }

    @Test
    @DisplayName("the join service container is healthy, refuses an unattested client in the handshake and answers an attested one")
    void joinServiceServes() throws Exception {
        String name = "sextant-it-join-" + suffix;
        int[] ports = FreePorts.loopback(2);
        int grpc = ports[0];
        int http = ports[1];
        TestPki ekCa = new TestPki("sextant-images-test-ek-ca");
        SoftwareTpmAttester node = ServiceFiles.node(ekCa);
        Path config = ServiceFiles.joinConfig(work.resolve("join-config"), ekCa, node);
        Path pki = ServiceFiles.clusterPki(work.resolve("join-pki"));
        // Nothing listens on the Kubernetes API address or the KMS socket: the calls below never get that far.
        Map<String, String> env = Map.of("SEXTANT_API_SERVER_ENDPOINT", "10.0.0.1:6443",
                "SEXTANT_KUBERNETES_BASE_PATH", "http://127.0.0.1:9", "SEXTANT_KMS_SOCKET", "/tmp/no-kms/kms.sock",
                "SEXTANT_JOIN_CA_CERT_FILE", "/etc/kubernetes/pki/ca.crt");
        long t0 = System.nanoTime();
        Docker.run(name, joinImage, Map.of(grpc, 9090, http, 9091),
                Map.of(config.toString(), "/var/config", pki.toString(), "/etc/kubernetes/pki"), env);
        String health = Health.await(http, START, () -> Docker.logs(name));
        long served = System.nanoTime() - t0;
        assertTrue(health.contains("UP"), health);

        // A client without a certificate passes the handshake (the operator has no TPM) and is refused before
        // the join method runs.
        StatusRuntimeException unattested = assertThrows(StatusRuntimeException.class, () -> join(grpc, OwnAttestation.none()));
        assertEquals(Status.Code.UNAUTHENTICATED, unattested.getStatus().getCode(), String.valueOf(unattested.getStatus()));
        assertEquals("the peer is not attested", unattested.getStatus().getDescription());
        // An attested node passes the handshake and reaches the method, which checks the (empty) request.
        StatusRuntimeException invalid = assertThrows(StatusRuntimeException.class, () -> join(grpc, OwnAttestation.by(node)));
        assertEquals(Status.Code.INVALID_ARGUMENT, invalid.getStatus().getCode(), String.valueOf(invalid.getStatus()));
        // That handshake was signed and verified in native code: the provider loaded in the image (as user
        // 10001, its library written to the container's /tmp), not the BouncyCastle fallback.
        String logs = Docker.logs(name);
        assertTrue(logs.contains("aTLS signatures in native code"), logs);
        System.out.printf("images: join-service container start-to-serving (docker run → /health 200) %.2f s%n",
                served / 1e9);
    }

    private static Object join(int port, OwnAttestation node) throws Exception {
        ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", port)
                .sslContext(AtlsContexts.client(node, ServerVerification.insecureAcceptAnyServer())).build();
        try {
            return JoinServiceGrpc.newBlockingStub(channel).withDeadlineAfter(20, TimeUnit.SECONDS)
                    .issueJoinTicket(IssueJoinTicketRequest.getDefaultInstance());
        } finally {
            channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
    }

    private static String skip(String reason) {
        System.out.println("images: SKIPPED: " + reason);
        return reason;
    }
}
