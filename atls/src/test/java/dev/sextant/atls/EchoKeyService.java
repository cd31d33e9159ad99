package dev.sextant.atls;

import com.google.protobuf.ByteString;
import dev.sextant.attestation.verify.AttestedState;
import dev.sextant.proto.v1.GetDataKeyRequest;
import dev.sextant.proto.v1.GetDataKeyResponse;
import dev.sextant.proto.v1.KeyServiceGrpc;
import io.grpc.stub.StreamObserver;

import java.util.concurrent.atomic.AtomicInteger;

/** Answers with the caller's verified AK name (empty when unattested), as a join service would bind to it. */
final class EchoKeyService extends KeyServiceGrpc.KeyServiceImplBase {
    final AtomicInteger invocations = new AtomicInteger();

    @Override
    public void getDataKey(GetDataKeyRequest request, StreamObserver<GetDataKeyResponse> response) {
        invocations.incrementAndGet();
        byte[] akName = PeerAttestation.current().map(AttestedState::akName).orElse(new byte[0]);
        response.onNext(GetDataKeyResponse.newBuilder().setDataKey(ByteString.copyFrom(akName)).build());
        response.onCompleted();
    }
}
