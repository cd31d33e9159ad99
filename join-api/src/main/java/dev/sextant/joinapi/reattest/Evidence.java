package dev.sextant.joinapi.reattest;

import dev.sextant.attestation.verify.AttestationRejected;
import java.util.Optional;

/** What asking one node produced, before it is judged against the node's binding. */
public sealed interface Evidence {
    /** A quote over this round's nonce passed every check of the cluster's policy. {@code ak}: its signer, hex. */
    record Verified(String ak, String imageVersion) implements Evidence {
    }

    /**
     * The cluster's policy refused the evidence. {@code signer}: the AK whose signature over this round's
     * nonce was verified before the refusal (only for refusals that come after the signature, the
     * nonce and the AK's chain were checked: PCR_MISMATCH and IMAGE_RETIRED); empty otherwise, since
     * then nothing says whose evidence it was.
     */
    record Rejected(AttestationRejected rejection, Optional<String> signer) implements Evidence {
    }

    /** No evidence: the node did not answer, or its answer was no usable document. */
    record NoAnswer(String why) implements Evidence {
    }
}
