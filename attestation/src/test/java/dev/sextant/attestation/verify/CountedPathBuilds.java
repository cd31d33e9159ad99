package dev.sextant.attestation.verify;

import dev.sextant.attestation.ecdsa.BouncyCastleEcdsa;
import java.security.SecureRandom;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Verifiers whose EK and AK certificate path builds are counted: the full check that a hit in the
 * cache of accepted chains skips. Lives in the verifier's package because the seam is package-private;
 * tests in other packages (the attack suite) reach it through here.
 */
public final class CountedPathBuilds {
    private final AtomicInteger builds = new AtomicInteger();

    /** A verifier for {@code policy} whose path builds (attempts, whether they succeed or not) this object counts. */
    public DocumentVerifier verifier(VerifierPolicy policy) {
        return new DocumentVerifier(policy, new BouncyCastleEcdsa(new SecureRandom()), params -> {
            builds.incrementAndGet();
            return EkCaTrust.PKIX.build(params);
        });
    }

    /** Path builds attempted so far by every verifier made here. */
    public int builds() {
        return builds.get();
    }
}
