package dev.sextant.nodeboot.joinclient;

import dev.sextant.atls.AtlsContexts;
import dev.sextant.attestation.issue.Attester;
import dev.sextant.attestation.verify.AttestationVerifier;
import dev.sextant.nodeboot.discovery.Endpoint;
import dev.sextant.proto.v1.IssueJoinTicketRequest;
import dev.sextant.proto.v1.IssueJoinTicketResponse;
import dev.sextant.proto.v1.JoinServiceGrpc;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.NettyChannelBuilder;
import io.netty.handler.ssl.SslContext;

import javax.net.ssl.SSLException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * IssueJoinTicket over aTLS: the node attests in the handshake (client-attested), and verifies the
 * join service's own attestation too when given a verifier (mutual). Constellation's node never
 * checked whom it handed its CSR to and took its disk key from; here that is one setting away.
 */
public final class AtlsJoinTransport implements JoinTransport {
    private final SslContext tls;
    private final Duration timeout;

    public AtlsJoinTransport(Attester attester, AttestationVerifier serviceVerifierOrNull, Duration timeout)
            throws SSLException {
        this.tls = AtlsContexts.client(attester, serviceVerifierOrNull);
        this.timeout = timeout;
    }

    @Override
    public IssueJoinTicketResponse issueJoinTicket(Endpoint endpoint, IssueJoinTicketRequest request) {
        ManagedChannel channel = NettyChannelBuilder.forAddress(endpoint.host(), endpoint.port()).sslContext(tls).build();
        try {
            return JoinServiceGrpc.newBlockingStub(channel).withDeadlineAfter(timeout.toMillis(), TimeUnit.MILLISECONDS)
                    .issueJoinTicket(request);
        } catch (RuntimeException e) {
            if (e instanceof StatusRuntimeException s) {
                throw s;
            }
            throw Status.UNKNOWN.withDescription(e.toString()).withCause(e).asRuntimeException();
        } finally {
            channel.shutdownNow();
        }
    }
}
