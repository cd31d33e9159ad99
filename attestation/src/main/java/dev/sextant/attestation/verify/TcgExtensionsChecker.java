package dev.sextant.attestation.verify;

import java.security.cert.Certificate;
import java.security.cert.PKIXCertPathChecker;
import java.util.Collection;
import java.util.Set;

/**
 * Marks as handled the critical extensions TPM vendors put on EK certificates that the JDK's PKIX
 * does not know (TCG EK Credential Profile §3.2): subject directory attributes carrying the TPM
 * specification, which some vendors mark critical. Their content is not needed to trust the EK
 * for Sextant's purpose, so they must not fail the chain.
 */
final class TcgExtensionsChecker extends PKIXCertPathChecker {
    /** id-ce-subjectDirectoryAttributes (RFC 5280 §4.2.1.8). */
    private static final Set<String> HANDLED = Set.of("2.5.29.9");

    @Override
    public void init(boolean forward) {
        // Stateless: nothing to reset between paths.
    }

    @Override
    public boolean isForwardCheckingSupported() { return true; }

    @Override
    public Set<String> getSupportedExtensions() { return HANDLED; }

    @Override
    public void check(Certificate cert, Collection<String> unresolvedCritExts) {
        unresolvedCritExts.removeAll(HANDLED);
    }
}
