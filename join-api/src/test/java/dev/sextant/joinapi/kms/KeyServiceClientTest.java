package dev.sextant.joinapi.kms;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.google.protobuf.ByteString;
import dev.sextant.grpcsupport.Refusal;
import dev.sextant.joinapi.refusal.JoinRefusal;
import dev.sextant.proto.v1.GetDataKeysRequest;
import dev.sextant.proto.v1.GetDataKeysResponse;
import dev.sextant.proto.v1.KeyServiceGrpc;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("KeyServiceClient: a ticket's keys in one KMS call, and only whole, well-formed answers")
class KeyServiceClientTest {

    @Test
    @DisplayName("the keys come back in the order of their ids, from one call")
    void keysInOrder() throws Exception {
        int[] calls = {0};
        try (Kms kms = new Kms(request -> {
            calls[0]++;
            GetDataKeysResponse.Builder keys = GetDataKeysResponse.newBuilder();
            request.getDataKeyIdsList().forEach(id -> keys.addDataKeys(key(id)));
            return keys.build();
        })) {
            List<byte[]> keys = kms.client.dataKeys("measurementSecret", "disk", "discoveryKey", "discoveryCa");
            assertEquals(1, calls[0]);
            assertArrayEquals(key("measurementSecret").toByteArray(), keys.get(0));
            assertArrayEquals(key("discoveryCa").toByteArray(), keys.get(3));
        }
    }

    @Test
    @DisplayName("a KMS answering fewer keys than asked, or a key of the wrong length: INTERNAL, no key used")
    void malformedAnswerRefused() throws Exception {
        try (Kms fewer = new Kms(request -> GetDataKeysResponse.newBuilder().addDataKeys(key("a")).build());
             Kms shorter = new Kms(request -> GetDataKeysResponse.newBuilder()
                     .addDataKeys(key("a")).addDataKeys(key("b").substring(0, 16)).build())) {
            for (Kms kms : List.of(fewer, shorter)) {
                Refusal r = assertThrows(Refusal.class, () -> kms.client.dataKeys("a", "b"));
                assertEquals(JoinRefusal.INTERNAL, r.reason());
                assertEquals("the KMS returned the wrong number of keys or a key of the wrong length", r.getMessage());
            }
        }
    }

    @Test
    @DisplayName("a KMS that is down: KMS_UNAVAILABLE, telling the node to retry")
    void kmsDown() throws Exception {
        try (Kms kms = new Kms(request -> {
            throw Status.UNAVAILABLE.withDescription("down").asRuntimeException();
        })) {
            Refusal r = assertThrows(Refusal.class, () -> kms.client.dataKeys("a"));
            assertEquals(JoinRefusal.KMS_UNAVAILABLE, r.reason());
        }
    }

    private static ByteString key(String id) {
        byte[] key = new byte[KeyServiceClient.KEY_LENGTH];
        key[0] = (byte) id.hashCode();
        return ByteString.copyFrom(key);
    }

    /** A KeyService on a loopback port answering with {@code answer}, and a client of it. */
    private static final class Kms implements AutoCloseable {
        final Server server;
        final KeyServiceClient client;

        Kms(Function<GetDataKeysRequest, GetDataKeysResponse> answer) throws Exception {
            server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
                    .addService(new KeyServiceGrpc.KeyServiceImplBase() {
                        @Override
                        public void getDataKeys(GetDataKeysRequest request, StreamObserver<GetDataKeysResponse> out) {
                            try {
                                out.onNext(answer.apply(request));
                                out.onCompleted();
                            } catch (RuntimeException e) {
                                out.onError(e);
                            }
                        }
                    }).build().start();
            client = new KeyServiceClient("127.0.0.1:" + server.getPort(), Duration.ofSeconds(5));
        }

        @Override
        public void close() throws Exception {
            client.close();
            server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
    }
}
