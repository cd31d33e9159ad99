package dev.sextant.joinapi.nodestate;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * One bound node as the operator sees it: its name, AK and role (from the bindings), the endpoint it last
 * reported, what re-attestation found, and its state with the reason (the revocation's, else the last
 * round's failure; empty when there is none). A node that is revoked is {@link AttestationState#REVOKED}
 * whatever its attestation record says: {@code revoked/<ak>} decides.
 */
public record NodeStatus(String name, String ak, String role, Optional<String> endpoint, Optional<String> imageVersion,
                         Optional<Instant> lastSuccess, AttestationState state, String reason, int missed) {
    /** The reason of a bound node that no round has asked yet. */
    public static final String NOT_REATTESTED_YET = "not re-attested yet";

    public NodeStatus {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(ak, "ak");
        Objects.requireNonNull(role, "role");
        Objects.requireNonNull(endpoint, "endpoint");
        Objects.requireNonNull(imageVersion, "imageVersion");
        Objects.requireNonNull(lastSuccess, "lastSuccess");
        Objects.requireNonNull(state, "state");
        Objects.requireNonNull(reason, "reason");
    }
}
