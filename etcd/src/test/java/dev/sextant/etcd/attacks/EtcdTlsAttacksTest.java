package dev.sextant.etcd.attacks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sextant.etcd.api.EtcdRpc.RangeRequest;
import dev.sextant.etcd.api.KVGrpc;
import dev.sextant.etcd.client.EtcdClient;
import dev.sextant.etcd.client.EtcdClientConfig;
import dev.sextant.etcd.client.EtcdException;
import dev.sextant.etcd.client.EtcdMember;
import dev.sextant.etcd.pki.EtcdCa;
import dev.sextant.etcd.pki.EtcdTlsFiles;
import dev.sextant.etcd.process.EtcdMemberConfig;
import dev.sextant.etcd.process.EtcdProcess;
import dev.sextant.etcd.testkit.EtcdInstalled;
import dev.sextant.etcd.testkit.LoopbackPorts;
import dev.sextant.etcd.testkit.TestEtcdCluster;
import dev.sextant.etcd.testkit.Tmpfs;
import com.google.protobuf.ByteString;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.NettyChannelBuilder;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import javax.net.ssl.SSLException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Who may talk to etcd: only holders of a certificate of the cluster's etcd CA, which only control
 * planes (holding the master secret) can derive. Each row attacks a running member and checks both
 * that the attacker was refused and that the bound value stayed out of its hands.
 */
@DisplayName("Attacks on etcd's client and peer ports")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class EtcdTlsAttacksTest {
    private static final String KEY = "/sextant/v1/bindings/disk/victim-disk";
    private static final String VALUE = "ak-of-the-victim-0123456789abcdef";
    private static final Duration TIMEOUT = Duration.ofSeconds(3);

    private Path dir;
    private TestEtcdCluster cluster;
    private TestEtcdCluster.Member victim;
    private EtcdClient admin;

    @BeforeAll
    void start(@TempDir(factory = Tmpfs.class) Path dir) throws Exception {
        EtcdInstalled.require();
        this.dir = dir;
        cluster = new TestEtcdCluster(dir.resolve("cluster"), seed());
        cluster.startFirst("cp-0");
        victim = cluster.member("cp-0");
        admin = cluster.client("cp-0", "cp-0");
        admin.put(KEY, VALUE);
    }

    @AfterAll
    void stop() throws Exception {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    @DisplayName("a client presenting no certificate is refused in etcd's TLS handshake and reads nothing")
    void noClientCertificate() throws Exception {
        ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", victim.clientPort())
                .sslContext(GrpcSslContexts.forClient().trustManager(victim.tls().caFile().toFile()).build()).build();
        try {
            StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> KVGrpc.newBlockingStub(channel)
                    .withDeadlineAfter(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
                    .range(RangeRequest.newBuilder().setKey(ByteString.copyFromUtf8(KEY)).build()));
            assertEquals(Status.Code.UNAVAILABLE, e.getStatus().getCode());
            assertTrue(causedBy(e, SSLException.class), "not refused by TLS: " + e);
        } finally {
            channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
    }

    @Test
    @DisplayName("a client certificate of another CA (a worker's or a stranger's seed) is refused in the TLS handshake")
    void certificateOfAnotherCa() {
        EtcdCa stranger = new EtcdCa(seed(), new SecureRandom());
        EtcdTlsFiles own = EtcdTlsFiles.write(dir.resolve("stranger"), "cp-0", stranger.certificate(),
                stranger.issueClient("cp-0", Instant.now(), EtcdCa.DEFAULT_VALIDITY));
        // It trusts the cluster's CA certificate (which is no secret), so only etcd's check can refuse it.
        assertRefused(new EtcdTlsFiles(victim.tls().caFile(), own.certFile(), own.keyFile()));
    }

    @Test
    @DisplayName("an expired client certificate of the cluster's own CA is refused in the TLS handshake")
    void expiredCertificate() {
        EtcdTlsFiles expired = EtcdTlsFiles.write(dir.resolve("expired"), "cp-9", cluster.ca().certificate(),
                cluster.ca().issueClient("cp-9", Instant.now().minus(Duration.ofDays(40)), Duration.ofDays(1)));
        assertRefused(expired);
    }

    @Test
    @DisplayName("plaintext gRPC and plaintext HTTP on the client port are refused: no listener speaks anything but TLS")
    void plaintext() throws Exception {
        ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", victim.clientPort()).usePlaintext().build();
        try {
            StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> KVGrpc.newBlockingStub(channel)
                    .withDeadlineAfter(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
                    .range(RangeRequest.newBuilder().setKey(ByteString.copyFromUtf8(KEY)).build()));
            assertEquals(Status.Code.UNAVAILABLE, e.getStatus().getCode(), e.toString());
            System.out.println("plaintext gRPC on the client port: " + e.getStatus() + " cause " + e.getCause());
        } finally {
            channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }

        String key = Base64.getEncoder().encodeToString(KEY.getBytes(StandardCharsets.UTF_8));
        String body = "{\"key\":\"" + key + "\"}";
        String reply;
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), victim.clientPort())) {
            socket.setSoTimeout((int) TIMEOUT.toMillis());
            OutputStream out = socket.getOutputStream();
            out.write(("POST /v3/kv/range HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: "
                    + body.length() + "\r\nConnection: close\r\n\r\n" + body).getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            reply = new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
        }
        String value = Base64.getEncoder().encodeToString(VALUE.getBytes(StandardCharsets.UTF_8));
        assertFalse(reply.contains(value) || reply.contains(VALUE), "plaintext HTTP read the value: " + reply);
        // Nothing at all, or Go's TLS server telling an HTTP client to use TLS: anything else is an HTTP server answering.
        assertTrue(reply.isEmpty() || reply.contains("Client sent an HTTP request to an HTTPS server"),
                "plaintext HTTP was answered: " + reply);
        System.out.println("plaintext HTTP on the client port got: " + reply.strip().replace("\r\n", " | "));
    }

    @Test
    @DisplayName("a peer whose certificate is of another CA, at a peer URL the cluster admitted as a learner, is refused on the peer port: it never joins and never gets the data")
    void peerOfAnotherCa() throws Exception {
        LoopbackPorts ports = new LoopbackPorts();
        String peerUrl = "https://127.0.0.1:" + ports.next();
        String clientUrl = "https://127.0.0.1:" + ports.next();
        // The worst case: the address of a member about to be added is taken over by an intruder.
        EtcdMember admitted = admin.addLearner(List.of(peerUrl));
        EtcdCa stranger = new EtcdCa(seed(), new SecureRandom());
        EtcdTlsFiles own = EtcdTlsFiles.write(dir.resolve("intruder"), "intruder", stranger.certificate(),
                stranger.issueMember("intruder", List.of(), List.of(InetAddress.getLoopbackAddress()), Instant.now(), EtcdCa.DEFAULT_VALIDITY));
        // It trusts the cluster's CA certificate, so only the victim's check of its certificate can refuse it.
        EtcdTlsFiles trustingTheVictim = new EtcdTlsFiles(victim.tls().caFile(), own.certFile(), own.keyFile());
        EtcdMemberConfig config = EtcdMemberConfig.joining("intruder", dir.resolve("intruder-data"), clientUrl, peerUrl,
                Map.of("cp-0", victim.peerUrl(), "intruder", peerUrl), TestEtcdCluster.TOKEN, trustingTheVictim);
        long refusedBefore = certificateRefusals();
        EtcdProcess intruder = EtcdProcess.start(EtcdProcess.DEFAULT_BINARY, config, dir.resolve("intruder.log"));
        try {
            Instant deadline = Instant.now().plusSeconds(15);
            while (intruder.isAlive() && Instant.now().isBefore(deadline)) {
                Thread.sleep(100);
            }
            assertFalse(intruder.isAlive(), "the intruder is still running:\n" + intruder.logTail(15));
            EtcdMember listed = admin.members().stream().filter(m -> m.id() == admitted.id()).findFirst().orElseThrow();
            assertFalse(listed.started(), "the intruder joined as " + listed);
            // The victim is the witness: the intruder sees either the alert or, when the victim closes first, a reset.
            Instant logged = Instant.now().plusSeconds(5);
            while (certificateRefusals() == refusedBefore && Instant.now().isBefore(logged)) {
                Thread.sleep(100);
            }
            assertTrue(certificateRefusals() > refusedBefore,
                    "the victim did not log refusing the intruder's certificate:\n" + cluster.process("cp-0").logTail(20)
                            + "\nthe intruder's log:\n" + intruder.logTail(20));
            System.out.println("the intruder's etcd ended with:\n" + intruder.logTail(3));
        } finally {
            intruder.kill();
            admin.remove(admitted.id());
        }
        assertEquals(Optional.of(VALUE), admin.get(KEY));
    }

    /** How many connections the victim has turned away for a certificate not of its CA, by its log. */
    private long certificateRefusals() throws IOException {
        try (Stream<String> lines = Files.lines(cluster.process("cp-0").log(), StandardCharsets.UTF_8)) {
            return lines.filter(l -> l.contains("rejected connection") && l.contains("certificate signed by unknown authority")).count();
        }
    }

    private void assertRefused(EtcdTlsFiles tls) {
        try (EtcdClient attacker = new EtcdClient(new EtcdClientConfig(List.of(victim.clientEndpoint()), tls, TIMEOUT))) {
            EtcdException e = assertThrows(EtcdException.class, () -> attacker.get(KEY));
            assertEquals(Status.Code.UNAVAILABLE, e.code(), e.getMessage());
            assertTrue(e.getMessage().contains("TLS handshake failed"), e.getMessage());
            assertFalse(e.getMessage().contains(VALUE));
            System.out.println("refused: " + e.getMessage());
        }
    }

    private static boolean causedBy(Throwable e, Class<? extends Throwable> type) {
        for (Throwable c = e; c != null; c = c.getCause()) {
            if (type.isInstance(c)) {
                return true;
            }
        }
        return false;
    }

    private static byte[] seed() {
        byte[] seed = new byte[32];
        new SecureRandom().nextBytes(seed);
        return seed;
    }
}
