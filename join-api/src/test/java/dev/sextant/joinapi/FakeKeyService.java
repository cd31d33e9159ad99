package dev.sextant.joinapi;

import com.google.protobuf.ByteString;
import dev.sextant.attestation.digest.Sha256;
import dev.sextant.grpcsupport.unix.ProcessUid;
import dev.sextant.grpcsupport.unix.UnixSocketGrpcServer;
import dev.sextant.proto.v1.GetDataKeysRequest;
import dev.sextant.proto.v1.GetDataKeysResponse;
import dev.sextant.proto.v1.KeyServiceGrpc;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Set;
import java.util.stream.Stream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * TEST DOUBLE of the KMS: a real gRPC KeyService on a Unix socket in a temporary directory, answering
 * this process's uid (as the KMS answers the join service's), whose keys are
 * SHA-256("key-" + id) (deterministic, so "same UUID, same key" is observable), and which can be
 * switched to answer UNAVAILABLE like a KMS that is down.
 */
public final class FakeKeyService extends KeyServiceGrpc.KeyServiceImplBase implements AutoCloseable {
    final AtomicBoolean down = new AtomicBoolean();
    public final AtomicInteger calls = new AtomicInteger();
    /** The ids of every call, in order. */
    public final List<List<String>> requests = new CopyOnWriteArrayList<>();
    /**
     * Run at each call before it answers: what happens elsewhere between a ticket's checks and its writes
     * (the KMS call sits between them), such as a revocation racing the ticket.
     */
    public volatile Runnable meanwhile = () -> { };
    private final Path dir;
    private final UnixSocketGrpcServer server;

    FakeKeyService() throws IOException {
        dir = Files.createTempDirectory("sextant-fake-kms");
        server = new UnixSocketGrpcServer("the fake KMS", dir.resolve("kms").resolve("kms.sock"), ProcessUid.current(),
                Set.of(ProcessUid.current()), uid -> { }, builder -> builder.addService(this));
    }

    Path socket() {
        return server.socket();
    }

    public static byte[] keyFor(String id) {
        return Arrays.copyOf(Sha256.of(("key-" + id).getBytes(StandardCharsets.UTF_8)), 32);
    }

    @Override
    public void getDataKeys(GetDataKeysRequest request, StreamObserver<GetDataKeysResponse> responses) {
        calls.incrementAndGet();
        requests.add(List.copyOf(request.getDataKeyIdsList()));
        meanwhile.run();
        if (down.get()) {
            responses.onError(Status.UNAVAILABLE.withDescription("kms down (test)").asRuntimeException());
            return;
        }
        GetDataKeysResponse.Builder keys = GetDataKeysResponse.newBuilder();
        request.getDataKeyIdsList().forEach(id -> keys.addDataKeys(ByteString.copyFrom(keyFor(id))));
        responses.onNext(keys.build());
        responses.onCompleted();
    }

    @Override
    public void close() throws InterruptedException {
        server.close();
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (IOException e) {
            // a temporary directory left behind; nothing to fail a test over
        }
    }
}
