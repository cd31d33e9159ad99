package dev.sextant.nodeboot.joinclient;

import dev.sextant.proto.v1.IssueRejoinTicketResponse;

import java.util.Optional;

/**
 * A rejoin ticket and, for a node whose TPM record names no role key yet, the join service role public
 * key the service that issued it proved in the handshake of that very call ({@link LearningRejoinTransport}).
 *
 * @param response         what the service answered: the disk key
 * @param provenRoleKey    the 32-byte role public key proven in the call's handshake; empty when none was
 *                         proven or the transport does not learn (the record names a role key already)
 */
public record RejoinTicket(IssueRejoinTicketResponse response, Optional<byte[]> provenRoleKey) {
    public RejoinTicket {
        provenRoleKey = provenRoleKey.map(byte[]::clone);
    }

    @Override
    public Optional<byte[]> provenRoleKey() {
        return provenRoleKey.map(byte[]::clone);
    }
}
