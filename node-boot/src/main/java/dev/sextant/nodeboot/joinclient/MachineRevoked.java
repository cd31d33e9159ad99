package dev.sextant.nodeboot.joinclient;

import io.grpc.StatusRuntimeException;

/**
 * A join service's refusal saying this machine's AK was revoked (refusal {@code REVOKED}, with the
 * revocation's reason code): final for the machine, so asking again changes nothing. Made only by
 * {@link AtlsJoinTransport}, from the trailers of an answer on a channel whose handshake verified the
 * service: an unverified service never gets to answer, so it cannot make a node stop asking. A
 * {@link StatusRuntimeException}, so a caller that does not act on it (the join path) retries as before.
 */
public final class MachineRevoked extends StatusRuntimeException {
    private static final long serialVersionUID = 1L;

    private final String reason;

    MachineRevoked(StatusRuntimeException refusal, String reason) {
        super(refusal.getStatus(), refusal.getTrailers());
        this.reason = reason;
    }

    /** The revocation's reason code ({@code OPERATOR}, {@code PCR_MISMATCH}, ...; {@code UNKNOWN} when the service named none). */
    public String reason() {
        return reason;
    }
}
