package dev.sextant.nodeboot.joinclient;

import dev.sextant.housekeeping.discovery.Endpoint;
import dev.sextant.proto.v1.IssueJoinTicketRequest;
import dev.sextant.proto.v1.IssueJoinTicketResponse;
import io.grpc.StatusRuntimeException;

/** One IssueJoinTicket call to one endpoint. */
@FunctionalInterface
public interface JoinTransport {
    IssueJoinTicketResponse issueJoinTicket(Endpoint endpoint, IssueJoinTicketRequest request)
            throws StatusRuntimeException;
}
