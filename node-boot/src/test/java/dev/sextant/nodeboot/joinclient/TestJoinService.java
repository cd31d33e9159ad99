package dev.sextant.nodeboot.joinclient;

import com.google.protobuf.ByteString;
import dev.sextant.atls.AtlsContexts;
import dev.sextant.attestation.issue.Attester;
import dev.sextant.attestation.verify.AttestationRejected;
import dev.sextant.attestation.verify.AttestationVerifier;
import dev.sextant.nodeboot.discovery.Endpoint;
import dev.sextant.proto.v1.IssueJoinTicketRequest;
import dev.sextant.proto.v1.IssueJoinTicketResponse;
import dev.sextant.proto.v1.JoinServiceGrpc;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import org.bouncycastle.pkcs.PKCS10CertificationRequest;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A small JoinService for tests (the real one is in join-api): client-attested aTLS, so a node
 * whose quote fails {@code verifier} never reaches the method; it checks the CSR names the node.
 */
final class TestJoinService extends JoinServiceGrpc.JoinServiceImplBase implements AutoCloseable {
    static final byte[] MEASUREMENT_SECRET = new byte[32];
    static final byte[] MEASUREMENT_SALT = new byte[32];

    final AtomicInteger refusedHandshakes = new AtomicInteger();
    final List<IssueJoinTicketRequest> requests = new CopyOnWriteArrayList<>();
    private final Server server;

    TestJoinService(Attester attesterOrNull, AttestationVerifier verifier) throws IOException {
        AttestationVerifier counting = (document, nonce, userData) -> {
            try {
                return verifier.verify(document, nonce, userData);
            } catch (AttestationRejected e) {
                refusedHandshakes.incrementAndGet();
                throw e;
            }
        };
        server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
                .sslContext(AtlsContexts.server(attesterOrNull, counting)).addService(this).build().start();
    }

    Endpoint endpoint() {
        return new Endpoint("127.0.0.1", server.getPort());
    }

    @Override
    public void issueJoinTicket(IssueJoinTicketRequest request, StreamObserver<IssueJoinTicketResponse> response) {
        requests.add(request);
        try {
            var csr = new PKCS10CertificationRequest(request.getKubeletCsr().toByteArray());
            if (!csr.getSubject().toString().equals("O=system:nodes,CN=system:node:" + request.getNodeName())) {
                response.onError(Status.INVALID_ARGUMENT.withDescription("CSR subject " + csr.getSubject()).asRuntimeException());
                return;
            }
        } catch (IOException e) {
            response.onError(Status.INVALID_ARGUMENT.withDescription("CSR: " + e.getMessage()).asRuntimeException());
            return;
        }
        response.onNext(IssueJoinTicketResponse.newBuilder()
                .setStateDiskKey(ByteString.copyFrom(new byte[32]))
                .setMeasurementSecret(ByteString.copyFrom(MEASUREMENT_SECRET))
                .setMeasurementSalt(ByteString.copyFrom(MEASUREMENT_SALT))
                .setKubeletCertificate(ByteString.copyFromUtf8("-----BEGIN CERTIFICATE-----\nstand-in\n-----END CERTIFICATE-----\n"))
                .setApiServerEndpoint("127.0.0.1:6443").setK3SToken("K10cafe::abcdef.0123456789abcdef")
                .build());
        response.onCompleted();
    }

    @Override
    public void close() {
        server.shutdownNow();
    }
}
