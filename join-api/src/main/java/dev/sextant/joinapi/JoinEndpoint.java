package dev.sextant.joinapi;

import dev.sextant.grpcsupport.Refusal;

import dev.sextant.joinapi.binding.InitNodeClaim;
import dev.sextant.joinapi.identity.AttestedCaller;
import dev.sextant.joinapi.identity.CallerIdentity;
import dev.sextant.joinapi.metrics.JoinMetrics;
import dev.sextant.joinapi.refusal.JoinRefusal;
import dev.sextant.joinapi.ticket.TicketIssuer;
import dev.sextant.proto.v1.IssueJoinTicketRequest;
import dev.sextant.proto.v1.IssueJoinTicketResponse;
import dev.sextant.proto.v1.IssueRejoinTicketRequest;
import dev.sextant.proto.v1.IssueRejoinTicketResponse;
import dev.sextant.proto.v1.JoinServiceGrpc;
import io.grpc.stub.StreamObserver;
import jakarta.inject.Singleton;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** gRPC JoinService: maps calls to {@link TicketIssuer} and refusals to status codes; counts both. */
@Singleton
public class JoinEndpoint extends JoinServiceGrpc.JoinServiceImplBase {
    private static final Logger LOG = LoggerFactory.getLogger(JoinEndpoint.class);

    private final TicketIssuer issuer;
    private final CallerIdentity caller;
    private final JoinMetrics metrics;

    /**
     * @param initNode unused here: depending on it makes the endpoint exist only after the init
     *                 node's name and disks were bound, so no call is served before that
     */
    public JoinEndpoint(TicketIssuer issuer, CallerIdentity caller, JoinMetrics metrics, InitNodeClaim initNode) {
        this.issuer = issuer;
        this.caller = caller;
        this.metrics = metrics;
    }

    @FunctionalInterface
    private interface Step<T> {
        T run(AttestedCaller caller) throws Refusal;
    }

    @Override
    public void issueJoinTicket(IssueJoinTicketRequest request, StreamObserver<IssueJoinTicketResponse> responses) {
        answer(JoinMetrics.Kind.JOIN, responses, ak -> issuer.join(request, ak));
    }

    @Override
    public void issueRejoinTicket(IssueRejoinTicketRequest request, StreamObserver<IssueRejoinTicketResponse> responses) {
        answer(JoinMetrics.Kind.REJOIN, responses, ak -> issuer.rejoin(request, ak));
    }

    private <T> void answer(JoinMetrics.Kind kind, StreamObserver<T> responses, Step<T> step) {
        long start = System.nanoTime();
        try {
            AttestedCaller attested = caller.current().orElseThrow(() ->
                    new Refusal(JoinRefusal.UNATTESTED, "the caller is not attested"));
            T response = step.run(attested);
            responses.onNext(response);
            responses.onCompleted();
            metrics.issued(kind, System.nanoTime() - start);
        } catch (Refusal r) {
            metrics.refused(kind, r.reason(), System.nanoTime() - start);
            // Caller mistakes at INFO; our own or our dependencies' trouble at WARN.
            if (r.isServerSide()) {
                LOG.warn("{} refused ({}): {}", kind, r.reason().tag(), r.getMessage(), r.getCause());
            } else {
                LOG.info("{} refused ({}): {}", kind, r.reason().tag(), r.getMessage());
            }
            responses.onError(r.toStatus());
        }
    }
}
