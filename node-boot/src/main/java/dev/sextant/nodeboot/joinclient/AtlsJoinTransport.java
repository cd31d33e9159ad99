package dev.sextant.nodeboot.joinclient;

import dev.sextant.atls.AtlsContexts;
import dev.sextant.atls.OwnAttestation;
import dev.sextant.atls.ServerVerification;
import dev.sextant.attestation.issue.Attester;
import dev.sextant.grpcsupport.WireRefusal;
import dev.sextant.housekeeping.discovery.Endpoint;
import dev.sextant.proto.v1.IssueJoinTicketRequest;
import dev.sextant.proto.v1.IssueJoinTicketResponse;
import dev.sextant.proto.v1.IssueRejoinTicketRequest;
import dev.sextant.proto.v1.IssueRejoinTicketResponse;
import dev.sextant.proto.v1.JoinServiceGrpc;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.NettyChannelBuilder;
import io.netty.handler.ssl.SslContext;

import javax.net.ssl.SSLException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * IssueJoinTicket and IssueRejoinTicket over aTLS: the node attests in the handshake, and verifies
 * the join service's own attestation (mutual): a service that fails it is refused in the
 * handshake, before the node sends or receives anything. (Constellation's node never checked whom
 * it took its disk key from.) Only a test passes {@link ServerVerification#insecureAcceptAnyServer()}.
 */
public final class AtlsJoinTransport implements JoinTransport, RejoinTransport {
    private static final int MAX_TICKET_BYTES = 64 * 1024;
    /** The join service's refusal code for a revoked AK (join-api {@code JoinRefusal.REVOKED}). */
    private static final String REVOKED = "REVOKED";

    private final SslContext tls;
    private final Duration timeout;

    public AtlsJoinTransport(Attester attester, ServerVerification joinService, Duration timeout) throws SSLException {
        this.tls = AtlsContexts.client(OwnAttestation.by(attester), joinService);
        this.timeout = timeout;
    }

    @Override
    public IssueJoinTicketResponse issueJoinTicket(Endpoint endpoint, IssueJoinTicketRequest request) {
        return call(endpoint, stub -> stub.issueJoinTicket(request));
    }

    @Override
    public IssueRejoinTicketResponse issueRejoinTicket(Endpoint endpoint, IssueRejoinTicketRequest request) {
        return call(endpoint, stub -> stub.issueRejoinTicket(request));
    }

    private <T> T call(Endpoint endpoint, Function<JoinServiceGrpc.JoinServiceBlockingStub, T> method) {
        // A hostile service could answer with anything: the answer's size is bounded before it is parsed.
        ManagedChannel channel = NettyChannelBuilder.forAddress(endpoint.host(), endpoint.port()).sslContext(tls)
                .maxInboundMessageSize(MAX_TICKET_BYTES).build();
        try {
            return method.apply(JoinServiceGrpc.newBlockingStub(channel)
                    .withDeadlineAfter(timeout.toMillis(), TimeUnit.MILLISECONDS));
        } catch (RuntimeException e) {
            if (e instanceof StatusRuntimeException s) {
                throw revocationOr(s);
            }
            throw Status.UNKNOWN.withDescription(e.toString()).withCause(e).asRuntimeException();
        } finally {
            channel.shutdownNow();
        }
    }

    /**
     * The one place a refusal's code is read: an answer's trailers reach here only over this channel,
     * whose handshake verified the service, so only a verified join service can say "revoked".
     */
    private static StatusRuntimeException revocationOr(StatusRuntimeException refused) {
        return WireRefusal.of(refused)
                .filter(r -> r.code() == Status.Code.PERMISSION_DENIED && REVOKED.equals(r.reason()))
                .<StatusRuntimeException>map(r -> new MachineRevoked(refused, r.detail().orElse("UNKNOWN")))
                .orElse(refused);
    }
}
