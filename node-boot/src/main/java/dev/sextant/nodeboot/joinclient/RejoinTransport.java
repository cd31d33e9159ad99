package dev.sextant.nodeboot.joinclient;

import dev.sextant.housekeeping.discovery.Endpoint;
import dev.sextant.proto.v1.IssueRejoinTicketRequest;
import dev.sextant.proto.v1.IssueRejoinTicketResponse;
import io.grpc.StatusRuntimeException;

/** One IssueRejoinTicket call to one endpoint. */
@FunctionalInterface
public interface RejoinTransport {
    IssueRejoinTicketResponse issueRejoinTicket(Endpoint endpoint, IssueRejoinTicketRequest request)
            throws StatusRuntimeException;

    /**
     * The same call, with the join service role key the service proved in its handshake when this
     * transport learns one ({@link LearningRejoinTransport}); by default none.
     */
    default RejoinTicket rejoinTicket(Endpoint endpoint, IssueRejoinTicketRequest request) throws StatusRuntimeException {
        return new RejoinTicket(issueRejoinTicket(endpoint, request), java.util.Optional.empty());
    }
}
