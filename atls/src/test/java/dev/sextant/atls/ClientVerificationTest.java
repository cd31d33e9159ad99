package dev.sextant.atls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.sextant.attestation.verify.AttestationVerifier;
import dev.sextant.attestation.verify.Reason;
import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("What a server tells a refused client in its calls rather than in a failed handshake")
class ClientVerificationTest {
    private final AttestationVerifier verifier = (doc, purpose, nonce, userData) -> {
        throw new AssertionError("not called");
    };

    @Test
    @DisplayName("only the policy's verdict on a genuine node's image (IMAGE_RETIRED) may be told: a reason decided before "
            + "the quote checked out (a forged, stale or untrusted quote) or a bare PCR mismatch fails the handshake")
    void onlyTellableReasons() {
        assertEquals(Set.of(Reason.IMAGE_RETIRED),
                ((ClientVerification.Required) ClientVerification.telling(verifier, Set.of(Reason.IMAGE_RETIRED))).toldInCall());
        for (Reason reason : EnumSet.complementOf(EnumSet.of(Reason.IMAGE_RETIRED))) {
            assertThrows(IllegalArgumentException.class, () -> ClientVerification.telling(verifier, Set.of(reason)), reason.name());
        }
        assertEquals(Set.of(), ((ClientVerification.Required) ClientVerification.by(verifier)).toldInCall());
    }
}
