package dev.sextant.kms;

import dev.sextant.keys.KeyDerivation;

import dev.sextant.proto.v1.GetDataKeyRequest;
import dev.sextant.proto.v1.GetDataKeyResponse;
import dev.sextant.proto.v1.KeyServiceGrpc;
import com.google.protobuf.UnsafeByteOperations;
import dev.sextant.grpcsupport.Refusal;
import io.grpc.stub.StreamObserver;
import jakarta.inject.Singleton;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** gRPC KeyService: validates the request, derives the key, counts the outcome. Never logs key bytes. */
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
        int length = request.getLength();
        Optional<Refusal> refusal = KeyRequestPolicy.check(id, length);
        if (refusal.isPresent()) {
            // The id may be garbage or huge, so only the reason is logged.
            LOG.debug("refused data key request: {}", refusal.get().reason());
            metrics.refused(refusal.get().reason());
            responses.onError(refusal.get().toStatus());
            return;
        }
        byte[] key = derivation.dataKey(id, length);
        // The array is fresh and never touched again, so wrapping without a copy is safe.
        responses.onNext(GetDataKeyResponse.newBuilder().setDataKey(UnsafeByteOperations.unsafeWrap(key)).build());
        responses.onCompleted();
        metrics.keyIssued();
        LOG.debug("issued data key id={} length={}", id, length);
    }
}
