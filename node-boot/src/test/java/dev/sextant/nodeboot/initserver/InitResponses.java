package dev.sextant.nodeboot.initserver;

import dev.sextant.proto.v1.InitResponse;
import io.grpc.stub.StreamObserver;
import java.util.ArrayList;
import java.util.List;

/** What an init call streamed back, for tests that call the endpoint in process. */
public final class InitResponses implements StreamObserver<InitResponse> {
    public final List<InitResponse> values = new ArrayList<>();
    public Throwable error;
    public boolean completed;

    @Override
    public void onNext(InitResponse value) {
        values.add(value);
    }

    @Override
    public void onError(Throwable t) {
        error = t;
    }

    @Override
    public void onCompleted() {
        completed = true;
    }
}
