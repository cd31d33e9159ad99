package dev.sextant.cli.recover;

import dev.sextant.atls.AtlsContexts;
import dev.sextant.atls.ClientVerification;
import dev.sextant.atls.OwnAttestation;
import dev.sextant.attestation.testkit.SoftwareTpmAttester;
import dev.sextant.proto.v1.RecoverRequest;
import dev.sextant.proto.v1.RecoverResponse;
import dev.sextant.proto.v1.RecoveryServiceGrpc;
import dev.sextant.proto.v1.RecoveryStatusRequest;
import dev.sextant.proto.v1.RecoveryStatusResponse;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * A control plane's recovery port as the CLI meets it: RecoveryService over server-attested aTLS
 * (a software TPM attester), on a real loopback port. It opens "its disk" only with the expected
 * key and records every request it received.
 */
public final class NodeStandIn implements AutoCloseable {
    public volatile boolean waiting = true;
    public volatile String diskUuid;
    public volatile byte[] diskKey;
    public final List<String> calls = Collections.synchronizedList(new ArrayList<>());
    public final List<byte[]> keysReceived = Collections.synchronizedList(new ArrayList<>());
    private final Server server;

    public NodeStandIn(SoftwareTpmAttester attester, int port) throws IOException {
        server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", port))
                .sslContext(AtlsContexts.server(OwnAttestation.by(attester), ClientVerification.anonymous()))
                .addService(new RecoveryServiceGrpc.RecoveryServiceImplBase() {
                    @Override
                    public void status(RecoveryStatusRequest request, StreamObserver<RecoveryStatusResponse> response) {
                        calls.add("Status");
                        response.onNext(RecoveryStatusResponse.newBuilder().setWaiting(waiting).setDiskUuid(diskUuid).build());
                        response.onCompleted();
                    }

                    @Override
                    public void recover(RecoverRequest request, StreamObserver<RecoverResponse> response) {
                        calls.add("Recover");
                        keysReceived.add(request.getStateDiskKey().toByteArray());
                        if (!Arrays.equals(diskKey, request.getStateDiskKey().toByteArray())) {
                            response.onError(Status.PERMISSION_DENIED
                                    .withDescription("the key does not open disk " + diskUuid).asRuntimeException());
                            return;
                        }
                        response.onNext(RecoverResponse.newBuilder().setDiskUuid(request.getDiskUuid())
                                .setSince("2026-11-24T03:14:37Z").build());
                        response.onCompleted();
                    }
                }).build().start();
    }

    public int port() {
        return server.getPort();
    }

    @Override
    public void close() {
        server.shutdownNow();
    }
}
