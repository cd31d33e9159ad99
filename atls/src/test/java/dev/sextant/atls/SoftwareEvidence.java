package dev.sextant.atls;

import dev.sextant.attestation.ecdsa.BouncyCastleEcdsa;
import dev.sextant.attestation.ecdsa.Ecdsa;
import dev.sextant.attestation.testkit.Mutation;
import dev.sextant.attestation.testkit.SoftwareTpmAttester;
import dev.sextant.attestation.testkit.SoftwareTpmOptions;
import dev.sextant.attestation.testkit.TestPki;
import dev.sextant.attestation.verify.AkTrust;
import dev.sextant.attestation.verify.DocumentVerifier;
import dev.sextant.attestation.verify.VerifierPolicy;

import java.security.SecureRandom;

/**
 * A node made of the attestation testkit's software TPM, and the real {@link DocumentVerifier}
 * that trusts exactly that node's EK CA and PCR values. Mutations make the node misbehave.
 */
final class SoftwareEvidence {
    final SoftwareTpmAttester node;
    final Counting.CountingAttester attester;
    /** Verifies THIS node's documents; hand it to the peer. */
    final Counting.CountingVerifier verifier;

    SoftwareEvidence(String name, Mutation... mutations) {
        this(node(name, mutations));
    }

    /** Fresh counters around an existing node: making a node costs several RSA key generations. */
    SoftwareEvidence(SoftwareTpmAttester node) {
        this(node, new BouncyCastleEcdsa(new SecureRandom()));
    }

    /** ... whose verifier checks quote signatures with {@code ecdsa}. */
    SoftwareEvidence(SoftwareTpmAttester node, Ecdsa ecdsa) {
        this.node = node;
        attester = new Counting.CountingAttester(node);
        verifier = new Counting.CountingVerifier(new DocumentVerifier(
                new VerifierPolicy(node.measurements(), AkTrust.ekCa(node.anchors())), ecdsa));
    }

    static SoftwareTpmAttester node(String name, Mutation... mutations) {
        SoftwareTpmOptions options = SoftwareTpmOptions.defaults();
        for (Mutation m : mutations) {
            options = options.with(m);
        }
        return new SoftwareTpmAttester(new TestPki("sextant-test-ek-ca-" + name), options);
    }
}
