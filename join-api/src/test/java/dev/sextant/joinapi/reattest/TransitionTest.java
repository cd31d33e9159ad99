package dev.sextant.joinapi.reattest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sextant.joinapi.nodestate.AttestationState;
import dev.sextant.joinapi.nodestate.AttestationRecord;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("A node's state after a round")
class TransitionTest {
    private static final Instant EARLIER = Instant.parse("2026-11-27T20:00:00Z");
    private static final Instant NOW = Instant.parse("2026-11-27T20:00:30Z");

    @Test
    @DisplayName("attested: the last success is now, the image version is the round's, no failure, no missed rounds")
    void attested() {
        Optional<AttestationRecord> before = Optional.of(AttestationRecord.missedAfter(Optional.empty(), "no answer"));
        Transition.Record r = assertInstanceOf(Transition.Record.class,
                Transition.after(before, new NodeOutcome.Attested("1.2"), NOW, 4));
        assertEquals(AttestationRecord.attested(NOW, "1.2"), r.attestation());
    }

    @Test
    @DisplayName("missed rounds make it unreachable, keeping its last success, until missed-periods in a row revoke it UNREACHABLE")
    void unreachableThenRevoked() {
        Optional<AttestationRecord> state = Optional.of(AttestationRecord.attested(EARLIER, "1.2"));
        for (int round = 1; round < 4; round++) {
            Transition.Record r = assertInstanceOf(Transition.Record.class,
                    Transition.after(state, new NodeOutcome.Missed("no answer"), NOW, 4));
            assertEquals(AttestationState.UNREACHABLE, r.attestation().state());
            assertEquals(round, r.attestation().missed());
            assertEquals(Optional.of(EARLIER), r.attestation().lastSuccess());
            assertEquals(Optional.of("1.2"), r.attestation().imageVersion());
            state = Optional.of(r.attestation());
        }
        Transition.Revoke revoke = assertInstanceOf(Transition.Revoke.class,
                Transition.after(state, new NodeOutcome.Missed("no answer"), NOW, 4));
        assertEquals(RevocationReason.UNREACHABLE, revoke.code());
        assertTrue(revoke.reason().startsWith("UNREACHABLE: missed 4 rounds in a row"), revoke.reason());
    }

    @Test
    @DisplayName("failed evidence revokes at once, its reason the code and what it names")
    void failedRevokes() {
        Transition.Revoke revoke = assertInstanceOf(Transition.Revoke.class, Transition.after(Optional.empty(),
                new NodeOutcome.Failed(RevocationReason.PCR_MISMATCH, "PCR 9 differs"), NOW, 4));
        assertEquals("PCR_MISMATCH: PCR 9 differs", revoke.reason());
    }
}
