package dev.sextant.atls;

import dev.sextant.attestation.Purpose;
import dev.sextant.attestation.issue.AttestationException;
import dev.sextant.attestation.issue.Attester;
import dev.sextant.attestation.verify.AttestationRejected;
import dev.sextant.attestation.verify.AttestationVerifier;
import dev.sextant.attestation.verify.AttestedState;
import dev.sextant.proto.v1.AttestationDocument;

import java.util.concurrent.atomic.AtomicInteger;

/** Decorators that count how often evidence was produced and checked: a handshake that skipped either shows. */
final class Counting {
    private Counting() {}

    static final class CountingAttester implements Attester {
        private final Attester delegate;
        final AtomicInteger calls = new AtomicInteger();

        CountingAttester(Attester delegate) { this.delegate = delegate; }

        @Override
        public AttestationDocument attest(Purpose purpose, byte[] nonce, byte[] userData) throws AttestationException {
            calls.incrementAndGet();
            return delegate.attest(purpose, nonce, userData);
        }
    }

    static final class CountingVerifier implements AttestationVerifier {
        private final AttestationVerifier delegate;
        final AtomicInteger verifications = new AtomicInteger();

        CountingVerifier(AttestationVerifier delegate) { this.delegate = delegate; }

        @Override
        public AttestedState verify(byte[] document, Purpose purpose, byte[] nonce, byte[] userData) throws AttestationRejected {
            verifications.incrementAndGet();
            return delegate.verify(document, purpose, nonce, userData);
        }
    }
}
