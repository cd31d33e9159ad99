package dev.sextant.joinapi.nodestate;

import java.util.Locale;
import java.util.Optional;

/** A node's state as re-attestation left it (docs/re-attestation.md); {@link #wire()} is how etcd and the CLI write it. */
public enum AttestationState {
    /** The last round succeeded. */
    ATTESTED,
    /**
     * No answer, or an answer from another AK than the bound one, for fewer rounds than the cluster
     * tolerates; also a node no round has asked yet.
     */
    UNREACHABLE,
    /** Final for the node's AK: {@code revoked/<ak>} exists. */
    REVOKED;

    public String wire() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static Optional<AttestationState> fromWire(String wire) {
        for (AttestationState state : values()) {
            if (state.wire().equals(wire)) {
                return Optional.of(state);
            }
        }
        return Optional.empty();
    }
}
