package dev.sextant.joinapi.nodestate;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * What the re-attestation holder keeps about one node, {@code nodes/<name>/attestation}: its state, the
 * last round that succeeded and the image version that round found, why the last round failed (empty
 * after a success) and how many rounds in a row it missed.
 */
public record NodeAttestation(AttestationState state, Optional<Instant> lastSuccess, Optional<String> imageVersion,
                              Optional<String> failure, int missed) {
    public NodeAttestation {
        Objects.requireNonNull(state, "state");
        Objects.requireNonNull(lastSuccess, "lastSuccess");
        Objects.requireNonNull(imageVersion, "imageVersion");
        Objects.requireNonNull(failure, "failure");
        if (missed < 0) {
            throw new IllegalArgumentException("missed rounds cannot be negative, got " + missed);
        }
    }

    /** A round that succeeded at {@code at}, finding {@code imageVersion}: the missed rounds start again at 0. */
    public static NodeAttestation attested(Instant at, String imageVersion) {
        return new NodeAttestation(AttestationState.ATTESTED, Optional.of(at), Optional.of(imageVersion), Optional.empty(), 0);
    }

    /** One more missed round after {@code previous} (absent: none before), for {@code why}. */
    public static NodeAttestation missedAfter(Optional<NodeAttestation> previous, String why) {
        return new NodeAttestation(AttestationState.UNREACHABLE, previous.flatMap(NodeAttestation::lastSuccess),
                previous.flatMap(NodeAttestation::imageVersion), Optional.of(why), previous.map(NodeAttestation::missed).orElse(0) + 1);
    }

    /** This record turned revoked for {@code reason}, keeping what the earlier rounds found. */
    public NodeAttestation revoked(String reason) {
        return new NodeAttestation(AttestationState.REVOKED, lastSuccess, imageVersion, Optional.of(reason), missed);
    }
}
