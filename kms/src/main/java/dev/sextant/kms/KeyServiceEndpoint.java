package dev.sextant.kms;

import dev.sextant.keys.KeyDerivation;

import dev.sextant.proto.v1.GetDataKeyRequest;
import dev.sextant.proto.v1.GetDataKeyResponse;
import dev.sextant.proto.v1.GetDataKeysRequest;
import dev.sextant.proto.v1.GetDataKeysResponse;
import dev.sextant.proto.v1.KeyServiceGrpc;
import com.google.protobuf.ByteString;
import com.google.protobuf.UnsafeByteOperations;
import dev.sextant.grpcsupport.Refusal;
import io.grpc.stub.StreamObserver;
import jakarta.inject.Singleton;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** gRPC KeyService: validates the request, derives the keys, counts the outcome. Never logs key bytes. */
@Singleton
public class KeyServiceEndpoint extends KeyServiceGrpc.KeyServiceImplBase {

    private static final Logger LOG = LoggerFactory.getLogger(KeyServiceEndpoint.class);

    private final KeyDerivation derivation;
    private final KmsMetrics metrics;

    public KeyServiceEndpoint(KeyDerivation derivation, KmsMetrics metrics) {
        this.derivation = derivation;
        this.metrics = metrics;
    }

    @Override
    public void getDataKey(GetDataKeyRequest request, StreamObserver<GetDataKeyResponse> responses) {
        String id = request.getDataKeyId();
        if (refused(KeyRequestPolicy.check(id, request.getLength()), responses)) {
            return;
        }
        responses.onNext(GetDataKeyResponse.newBuilder().setDataKey(issue(id, request.getLength())).build());
        responses.onCompleted();
    }

    @Override
    public void getDataKeys(GetDataKeysRequest request, StreamObserver<GetDataKeysResponse> responses) {
        List<String> ids = request.getDataKeyIdsList();
        if (refused(KeyRequestPolicy.check(ids, request.getLength()), responses)) {
            return;
        }
        GetDataKeysResponse.Builder keys = GetDataKeysResponse.newBuilder();
        for (String id : ids) {
            keys.addDataKeys(issue(id, request.getLength()));
        }
        responses.onNext(keys.build());
        responses.onCompleted();
    }

    private boolean refused(Optional<Refusal> refusal, StreamObserver<?> responses) {
        if (refusal.isEmpty()) {
            return false;
        }
        // The ids may be garbage or huge, so only the reason is logged.
        LOG.debug("refused data key request: {}", refusal.get().reason());
        metrics.refused(refusal.get().reason());
        responses.onError(refusal.get().toStatus());
        return true;
    }

    /** A checked id's key; the array is fresh and never touched again, so wrapping it without a copy is safe. */
    private ByteString issue(String id, int length) {
        ByteString key = UnsafeByteOperations.unsafeWrap(derivation.dataKey(id, length));
        metrics.keyIssued();
        LOG.debug("issued data key id={} length={}", id, length);
        return key;
    }
}
