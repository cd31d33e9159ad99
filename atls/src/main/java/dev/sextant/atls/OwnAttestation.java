package dev.sextant.atls;

import dev.sextant.attestation.issue.Attester;

import java.util.Objects;
import java.util.Optional;

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
        return new Attests(attester, Optional.empty());
    }

    /**
     * As {@link #by}, and the certificate also carries {@code prover}'s {@link HandshakeProof} for this
     * handshake (a control plane's join service: its role, docs/atls.md).
     */
    static OwnAttestation proving(Attester attester, HandshakeProver prover) {
        return new Attests(attester, Optional.of(Objects.requireNonNull(prover, "prover")));
    }

    /** A bare fresh self-signed certificate: the peer learns nothing about this side from the handshake. */
    static OwnAttestation none() {
        return new None();
    }

    record Attests(Attester attester, Optional<HandshakeProver> prover) implements OwnAttestation {
        public Attests {
            Objects.requireNonNull(attester, "attester (use OwnAttestation.none() for a side that does not attest)");
            Objects.requireNonNull(prover, "prover");
        }
    }

    record None() implements OwnAttestation {
    }
}
