package dev.sextant.joinapi.nodestate;

import java.util.Objects;
import java.util.Optional;

/**
 * What a holder's revocation did ({@link NodeStateStore#revoke(String, String, String, String,
 * dev.sextant.etcd.client.Fence, java.util.OptionalLong)}): the revocation in force ({@link AttestationWrite#WRITTEN}:
 * this one; {@link AttestationWrite#REVOKED}: an earlier one of the same AK), or why nothing was written
 * ({@link AttestationWrite#TENURE_ENDED}, {@link AttestationWrite#SUPERSEDED}).
 */
public record RevocationWrite(AttestationWrite outcome, Optional<Revocation> inForce) {
    public RevocationWrite {
        Objects.requireNonNull(outcome, "outcome");
        Objects.requireNonNull(inForce, "inForce");
        boolean inForceExpected = outcome == AttestationWrite.WRITTEN || outcome == AttestationWrite.REVOKED;
        if (inForce.isPresent() != inForceExpected) {
            throw new IllegalArgumentException(outcome + (inForceExpected ? " names the revocation in force" : " has no revocation"));
        }
    }
}
