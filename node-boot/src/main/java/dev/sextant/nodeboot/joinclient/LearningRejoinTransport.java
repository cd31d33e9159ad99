package dev.sextant.nodeboot.joinclient;

import dev.sextant.atls.ServerVerification;
import dev.sextant.attestation.issue.Attester;
import dev.sextant.housekeeping.discovery.Endpoint;
import dev.sextant.nodeboot.jointrust.RoleKeyWitness;
import dev.sextant.proto.v1.IssueRejoinTicketRequest;
import dev.sextant.proto.v1.IssueRejoinTicketResponse;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;

import javax.net.ssl.SSLException;
import java.time.Duration;
import java.util.function.Function;

/**
 * The rejoin transport of a node whose TPM record names no join service role key (version 1): checks
 * the service as {@link dev.sextant.nodeboot.jointrust.JoinServiceTrust#rejoinVerificationLearning}
 * does, and hands back with each ticket the role key the service proved in that call's handshake. Each
 * call has its own TLS context and {@link RoleKeyWitness}, so a key proven in one call never travels
 * with another call's ticket.
 */
public final class LearningRejoinTransport implements RejoinTransport {
    private final Attester attester;
    private final Function<RoleKeyWitness, ServerVerification> verification;
    private final Duration timeout;

    /** @param verification the check of one call's handshakes, noting proven role keys in the witness it is given */
    public LearningRejoinTransport(Attester attester, Function<RoleKeyWitness, ServerVerification> verification,
                                   Duration timeout) {
        this.attester = attester;
        this.verification = verification;
        this.timeout = timeout;
    }

    @Override
    public IssueRejoinTicketResponse issueRejoinTicket(Endpoint endpoint, IssueRejoinTicketRequest request) {
        return rejoinTicket(endpoint, request).response();
    }

    @Override
    public RejoinTicket rejoinTicket(Endpoint endpoint, IssueRejoinTicketRequest request) throws StatusRuntimeException {
        RoleKeyWitness witness = new RoleKeyWitness();
        AtlsJoinTransport call;
        try {
            call = new AtlsJoinTransport(attester, verification.apply(witness), timeout);
        } catch (SSLException e) {
            throw Status.INTERNAL.withDescription("the rejoin's TLS context: " + e.getMessage()).withCause(e).asRuntimeException();
        }
        IssueRejoinTicketResponse response = call.issueRejoinTicket(endpoint, request);
        return new RejoinTicket(response, witness.provenKey());
    }
}
