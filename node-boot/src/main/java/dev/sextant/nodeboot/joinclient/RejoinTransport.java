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
}
