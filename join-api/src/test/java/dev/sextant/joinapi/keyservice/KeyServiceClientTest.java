package dev.sextant.joinapi.keyservice;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.google.protobuf.ByteString;
import dev.sextant.grpcsupport.Refusal;
import dev.sextant.grpcsupport.unix.ProcessUid;
import dev.sextant.grpcsupport.unix.UnixSocketGrpcServer;
import dev.sextant.joinapi.refusal.JoinRefusal;
import dev.sextant.proto.v1.GetDataKeysRequest;
import dev.sextant.proto.v1.GetDataKeysResponse;
import dev.sextant.proto.v1.KeyServiceGrpc;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Set;
import java.util.stream.Stream;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("KeyServiceClient: a ticket's keys by name from one call on the KMS socket, no key it does not use, only whole answers")
class KeyServiceClientTest {
    private static final String UUID = "6f8c2e1a-3b4d-4e5f-8a9b-0c1d2e3f4a5b";

    @Test
    @DisplayName("a join ticket's four keys come back by name, from one call")
    void joinKeysByName() throws Exception {
        List<List<String>> requests = new CopyOnWriteArrayList<>();
        try (Kms kms = new Kms(echoing(requests))) {
            JoinKeys keys = kms.client.joinKeys(UUID);
            assertEquals(List.of(List.of("measurementSecret", UUID, "discoveryKey", "discoveryCa")), requests);
            assertArrayEquals(key("measurementSecret").toByteArray(), keys.measurementSecret());
            assertArrayEquals(key(UUID).toByteArray(), keys.diskKey());
            assertArrayEquals(key("discoveryKey").toByteArray(), keys.discoveryKey());
            assertArrayEquals(key("discoveryCa").toByteArray(), keys.discoveryCaSeed());
            assertEquals("JoinKeys[secrets redacted]", keys.toString());
        }
    }

    @Test
    @DisplayName("a rejoin asks the KMS for the disk's key and for no other")
    void rejoinAsksForTheDiskKeyAlone() throws Exception {
        List<List<String>> requests = new CopyOnWriteArrayList<>();
        try (Kms kms = new Kms(echoing(requests))) {
            assertArrayEquals(key(UUID).toByteArray(), kms.client.diskKey(UUID));
            assertEquals(List.of(List.of(UUID)), requests);
        }
    }

    @Test
    @DisplayName("a KMS answering fewer keys than asked, or a key of the wrong length: INTERNAL, no key used")
    void malformedAnswerRefused() throws Exception {
        try (Kms fewer = new Kms(request -> GetDataKeysResponse.newBuilder().addDataKeys(key("a")).build());
             Kms shorter = new Kms(request -> GetDataKeysResponse.newBuilder()
                     .addDataKeys(key("a")).addDataKeys(key("b").substring(0, 16)).build())) {
            for (Kms kms : List.of(fewer, shorter)) {
                Refusal r = assertThrows(Refusal.class, () -> kms.client.joinKeys(UUID));
                assertEquals(JoinRefusal.INTERNAL, r.reason());
                assertEquals("the KMS returned the wrong number of keys or a key of the wrong length", r.getMessage());
            }
        }
    }

    @Test
    @DisplayName("no KMS on the socket (not started yet, or restarting): KMS_UNAVAILABLE, telling the node to retry")
    void noKmsOnTheSocket() throws Exception {
        Path dir = Files.createTempDirectory("sextant-no-kms");
        KeyServiceClient client = new KeyServiceClient(dir.resolve("kms.sock"), Duration.ofSeconds(2));
        try {
            Refusal r = assertThrows(Refusal.class, () -> client.diskKey(UUID));
            assertEquals(JoinRefusal.KMS_UNAVAILABLE, r.reason());
        } finally {
            client.close();
            Files.delete(dir);
        }
    }

    @Test
    @DisplayName("a KMS that is down: KMS_UNAVAILABLE, telling the node to retry")
    void kmsDown() throws Exception {
        try (Kms kms = new Kms(request -> {
            throw Status.UNAVAILABLE.withDescription("down").asRuntimeException();
        })) {
            Refusal r = assertThrows(Refusal.class, () -> kms.client.diskKey(UUID));
            assertEquals(JoinRefusal.KMS_UNAVAILABLE, r.reason());
        }
    }

    /** A KMS that answers each id with {@link #key}, recording the ids of every call. */
    private static Function<GetDataKeysRequest, GetDataKeysResponse> echoing(List<List<String>> requests) {
        return request -> {
            requests.add(List.copyOf(request.getDataKeyIdsList()));
            GetDataKeysResponse.Builder keys = GetDataKeysResponse.newBuilder();
            request.getDataKeyIdsList().forEach(id -> keys.addDataKeys(key(id)));
            return keys.build();
        };
    }

    private static ByteString key(String id) {
        byte[] key = new byte[KeyServiceClient.KEY_LENGTH];
        key[0] = (byte) id.hashCode();
        return ByteString.copyFrom(key);
    }

    /** A KeyService on a Unix socket answering with {@code answer}, and a client of it. */
    private static final class Kms implements AutoCloseable {
        final Path dir;
        final UnixSocketGrpcServer server;
        final KeyServiceClient client;

        Kms(Function<GetDataKeysRequest, GetDataKeysResponse> answer) throws Exception {
            dir = Files.createTempDirectory("sextant-kms-client-test");
            server = new UnixSocketGrpcServer("a test KMS", dir.resolve("kms/kms.sock"), ProcessUid.current(),
                    Set.of(ProcessUid.current()), uid -> { }, builder -> builder.addService(new KeyServiceGrpc.KeyServiceImplBase() {
                        @Override
                        public void getDataKeys(GetDataKeysRequest request, StreamObserver<GetDataKeysResponse> out) {
                            try {
                                out.onNext(answer.apply(request));
                                out.onCompleted();
                            } catch (RuntimeException e) {
                                out.onError(e);
                            }
                        }
                    }));
            client = new KeyServiceClient(server.socket(), Duration.ofSeconds(5));
        }

        @Override
        public void close() throws Exception {
            client.close();
            server.close();
            try (Stream<Path> files = Files.walk(dir)) {
                files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
            }
        }
    }
}
