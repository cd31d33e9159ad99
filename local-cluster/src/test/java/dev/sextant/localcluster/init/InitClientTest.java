package dev.sextant.localcluster.init;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import dev.sextant.proto.v1.InitFailure;
import dev.sextant.proto.v1.InitProgress;
import dev.sextant.proto.v1.InitRequest;
import dev.sextant.proto.v1.InitResponse;
import dev.sextant.proto.v1.InitServiceGrpc;
import dev.sextant.proto.v1.InitSuccess;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The init call against an in-test init server. The channel here is plaintext: attested TLS is the
 * caller's channel (sextant init's, tested in cli's InitCommandTest).
 */
@DisplayName("The operator's init call")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class InitClientTest {
    private static final byte[] CLUSTER_ID = {(byte) 0xab, 0x01};

    private final AtomicReference<List<InitResponse>> answer = new AtomicReference<>();
    private final List<String> progress = new ArrayList<>();
    private final List<String> warnings = new ArrayList<>();
    private Server server;
    private ManagedChannel channel;

    @BeforeAll
    void startNode() throws Exception {
        server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
                .addService(new InitServiceGrpc.InitServiceImplBase() {
                    @Override
                    public void init(InitRequest request, StreamObserver<InitResponse> response) {
                        if (request.getInitSecret().toStringUtf8().equals("wrong")) {
                            response.onError(Status.PERMISSION_DENIED.asRuntimeException());
                            return;
                        }
                        answer.get().forEach(response::onNext);
                        response.onCompleted();
                    }
                }).build().start();
        channel = NettyChannelBuilder.forAddress("127.0.0.1", server.getPort()).usePlaintext().build();
    }

    @BeforeEach
    void nothingHeardYet() {
        progress.clear();
        warnings.clear();
    }

    @AfterAll
    void stopNode() {
        channel.shutdownNow();
        server.shutdownNow();
    }

    private InitResult init(String secret, InitResponse... responses) throws InitFailed {
        answer.set(List.of(responses));
        return new InitClient(channel, Duration.ofSeconds(30)).init(InitRequest.newBuilder()
                .setInitSecret(ByteString.copyFromUtf8(secret)).build(), progress::add, warnings::add);
    }

    private static InitResponse progress(String step, String detail) {
        return InitResponse.newBuilder().setProgress(InitProgress.newBuilder().setStep(step).setDetail(detail)).build();
    }

    private static InitResponse success(String kubeconfig) {
        return InitResponse.newBuilder().setSuccess(InitSuccess.newBuilder().setClusterId(ByteString.copyFrom(CLUSTER_ID))
                .setKubeconfig(ByteString.copyFromUtf8(kubeconfig))).build();
    }

    private static InitResponse failure(String error) {
        return InitResponse.newBuilder().setFailure(InitFailure.newBuilder().setError(error)).build();
    }

    private static InitResponse journal(String chunk) {
        return InitResponse.newBuilder().setJournalChunk(ByteString.copyFromUtf8(chunk)).build();
    }

    @Test
    @DisplayName("passes each progress message on as '[step] detail' and returns the cluster ID and kubeconfig")
    void success() throws Exception {
        InitResult result = init("s", progress("lock", "node locked"), progress("k3s", "started"),
                success("server: https://127.0.0.1:6443\n"));
        assertEquals(List.of("[lock] node locked", "[k3s] started"), progress);
        assertArrayEquals(CLUSTER_ID, result.clusterId());
        assertEquals("ab01", result.clusterIdHex());
        assertEquals(Optional.of("server: https://127.0.0.1:6443\n"), result.kubeconfig());
    }

    @Test
    @DisplayName("returns no kubeconfig when the node runs no Kubernetes")
    void noKubernetes() throws Exception {
        assertEquals(Optional.empty(), init("s", success("")).kubeconfig());
    }

    @Test
    @DisplayName("throws the node's failure with the journal chunks that followed it, in order")
    void failureWithJournal() {
        InitFailed failed = assertThrows(InitFailed.class, () -> init("s", failure("k3s exited with 1"),
                journal("line one\n"), journal("line two\n")));
        assertEquals("k3s exited with 1", failed.getMessage());
        assertEquals("line one\nline two\n", new String(failed.journal(), StandardCharsets.UTF_8));
    }

    @Test
    @DisplayName("refuses a second outcome, and a stream that ends without one")
    void oneOutcome() {
        var second = assertThrows(IllegalStateException.class, () -> init("s", success(""), failure("late")));
        assertTrue(second.getMessage().contains("second outcome"), second.getMessage());
        var none = assertThrows(IllegalStateException.class, () -> init("s", progress("lock", "node locked")));
        assertTrue(none.getMessage().contains("without a result"), none.getMessage());
    }

    @Test
    @DisplayName("warns of a message of a kind it does not know and goes on")
    void unknownKind() throws Exception {
        init("s", InitResponse.getDefaultInstance(), success(""));
        assertEquals(List.of("warning: ignoring an init message of an unknown kind"), warnings);
    }

    @Test
    @DisplayName("leaves a refused call to the caller as the gRPC status")
    void refused() {
        var e = assertThrows(StatusRuntimeException.class, () -> init("wrong"));
        assertEquals(Status.Code.PERMISSION_DENIED, e.getStatus().getCode());
    }
}
