package dev.sextant.atls;

import dev.sextant.attestation.issue.Attester;

import java.util.Objects;

/**
 * What this side of an aTLS handshake puts in its freshly minted certificate: a quote from its
 * TPM, or nothing but the certificate.
 */
public sealed interface OwnAttestation {
    /**
     * The certificate carries a document from {@code attester} for this side's aTLS purpose, over
     * the nonce the peer chose (its TLS random) and SHA-256 of the minted key.
     */
    static OwnAttestation by(Attester attester) {
        return new Attests(attester);
    }

    /** A bare fresh self-signed certificate: the peer learns nothing about this side from the handshake. */
    static OwnAttestation none() {
        return new None();
    }

    record Attests(Attester attester) implements OwnAttestation {
        public Attests {
            Objects.requireNonNull(attester, "attester (use OwnAttestation.none() for a side that does not attest)");
        }
    }

    record None() implements OwnAttestation {
    }
}
