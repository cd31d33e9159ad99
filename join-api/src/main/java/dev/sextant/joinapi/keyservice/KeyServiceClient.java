package dev.sextant.joinapi.keyservice;

import dev.sextant.grpcsupport.Refusal;
import dev.sextant.grpcsupport.unix.UnixSocketChannel;
import dev.sextant.keys.KeyDerivation;
import com.google.protobuf.ByteString;
import dev.sextant.joinapi.refusal.JoinRefusal;
import dev.sextant.proto.v1.GetDataKeysRequest;
import dev.sextant.proto.v1.KeyServiceGrpc;
import dev.sextant.serviceconfig.JoinServiceConfig;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import jakarta.inject.Inject;
import jakarta.annotation.PreDestroy;
import jakarta.inject.Singleton;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Client of the cluster KMS (gRPC KeyService) on its Unix socket. One long-lived channel, not one per call
 * as in Constellation: under a node-pool join that is hundreds of connections saved per second. Plain text
 * between two processes of one machine (the kernel carries it; the KMS knows this service by its uid); the
 * keys then travel to the node only inside the attested channel. Keys are asked for by what they are for (a
 * join ticket's, a rejoin's disk key), so a ticket fetches no key it does not use. Key bytes are returned,
 * never logged.
 */
@Singleton
public class KeyServiceClient {
    public static final int KEY_LENGTH = 32;

    private final UnixSocketChannel socket;
    private final KeyServiceGrpc.KeyServiceBlockingStub stub;
    private final Duration deadline;

    @Inject
    public KeyServiceClient(JoinServiceConfig config) {
        this(config.kms().socket(), config.kms().deadline());
    }

    public KeyServiceClient(Path socket, Duration deadline) {
        this.socket = new UnixSocketChannel(socket);
        this.stub = KeyServiceGrpc.newBlockingStub(this.socket.channel());
        this.deadline = deadline;
    }

    /** The keys of a join ticket for the disk {@code diskUuid}, from one call. */
    public JoinKeys joinKeys(String diskUuid) throws Refusal {
        List<byte[]> keys = dataKeys(KeyDerivation.MEASUREMENT_SECRET, diskUuid, KeyDerivation.DISCOVERY_KEY,
                KeyDerivation.DISCOVERY_CA);
        return new JoinKeys(keys.get(0), keys.get(1), keys.get(2), keys.get(3));
    }

    /** The state-disk key of {@code diskUuid} and no other: all a rejoin ticket carries. */
    public byte[] diskKey(String diskUuid) throws Refusal {
        return dataKeys(diskUuid).get(0);
    }

    /**
     * What the re-attestation holder needs, from one call: the measurement secret (the cluster ID, whose
     * mark a member's PCR 15 carries, is derived from it) and the discovery CA's seed (it signs the
     * revocation list). Never leaves this service.
     */
    public ReAttestationKeys reAttestationKeys() throws Refusal {
        List<byte[]> keys = dataKeys(KeyDerivation.MEASUREMENT_SECRET, KeyDerivation.DISCOVERY_CA);
        return new ReAttestationKeys(keys.get(0), keys.get(1));
    }

    /**
     * The 32-byte data keys of {@code keyIds}, in their order, from one call (a ticket needs four,
     * and a call each cost more than the rest of the ticket); UNAVAILABLE when the KMS cannot be
     * reached in time.
     */
    private List<byte[]> dataKeys(String... keyIds) throws Refusal {
        try {
            List<ByteString> keys = stub.withDeadlineAfter(deadline.toMillis(), TimeUnit.MILLISECONDS)
                    .getDataKeys(GetDataKeysRequest.newBuilder().addAllDataKeyIds(Arrays.asList(keyIds))
                            .setLength(KEY_LENGTH).build())
                    .getDataKeysList();
            if (keys.size() != keyIds.length || keys.stream().anyMatch(k -> k.size() != KEY_LENGTH)) {
                throw new Refusal(JoinRefusal.INTERNAL, "the KMS returned the wrong number of keys or a key of the wrong length");
            }
            return keys.stream().map(ByteString::toByteArray).toList();
        } catch (StatusRuntimeException e) {
            Status.Code code = e.getStatus().getCode();
            if (code == Status.Code.UNAVAILABLE || code == Status.Code.DEADLINE_EXCEEDED
                    || code == Status.Code.RESOURCE_EXHAUSTED) {
                throw new Refusal(JoinRefusal.KMS_UNAVAILABLE, "the key service is unavailable; retry later", e);
            }
            throw new Refusal(JoinRefusal.INTERNAL, "the key service refused the request (" + code + ")", e);
        }
    }

    @PreDestroy
    void close() throws InterruptedException {
        socket.close();
    }
}
