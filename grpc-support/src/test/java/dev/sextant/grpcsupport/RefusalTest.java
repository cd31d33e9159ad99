package dev.sextant.grpcsupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import org.junit.jupiter.api.DisplayName;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class RefusalTest {
    enum TestReason implements Refusal.Reason {
        BAD_INPUT(Status.Code.INVALID_ARGUMENT),
        BROKEN(Status.Code.INTERNAL);

        private final Status.Code code;

        TestReason(Status.Code code) {
            this.code = code;
        }

        @Override
        public Status.Code code() {
            return code;
        }
    }

    @Test
    @DisplayName("the caller gets the reason's code and the message, never the cause's text")
    void statusCarriesMessageNotCause() {
        Refusal r = new Refusal(TestReason.BROKEN, "signing failed", new IllegalStateException("secret=deadbeef"));
        StatusRuntimeException status = r.toStatus();
        assertEquals(Status.Code.INTERNAL, status.getStatus().getCode());
        assertEquals("signing failed", status.getStatus().getDescription());
        assertEquals(null, status.getCause());
        assertFalse(status.toString().contains("deadbeef"));
    }

    @Test
    @DisplayName("an enum reason's metric tag is its lower-case name; server-side reasons are told apart")
    void tagAndSide() {
        assertEquals("bad_input", TestReason.BAD_INPUT.tag());
        assertFalse(new Refusal(TestReason.BAD_INPUT, "x").isServerSide());
        assertTrue(new Refusal(TestReason.BROKEN, "x").isServerSide());
    }

    @Test
    @DisplayName("the reason's name travels in the sextant-refusal trailer, a detailed refusal's code in sextant-refusal-detail; the caller reads both back")
    void reasonAndDetailInTrailers() {
        WireRefusal plain = WireRefusal.of(new Refusal(TestReason.BAD_INPUT, "no").toStatus()).orElseThrow();
        assertEquals(new WireRefusal(Status.Code.INVALID_ARGUMENT, "BAD_INPUT", Optional.empty()), plain);
        WireRefusal detailed = WireRefusal.of(Refusal.detailed(TestReason.BROKEN, "node x was revoked", "PCR_MISMATCH")
                .toStatus()).orElseThrow();
        assertEquals(new WireRefusal(Status.Code.INTERNAL, "BROKEN", Optional.of("PCR_MISMATCH")), detailed);
    }

    @Test
    @DisplayName("a status without the trailer is no refusal; a trailer that is not a code is read as absent; a detail that is not a code is refused at the source")
    void onlyCodesAreRead() {
        assertEquals(Optional.empty(), WireRefusal.of(Status.PERMISSION_DENIED.withDescription("x").asRuntimeException()));
        Metadata trailers = new Metadata();
        trailers.put(Refusal.REASON_KEY, "REVOKED");
        trailers.put(Refusal.DETAIL_KEY, "OPERATOR; rm -rf /");
        assertEquals(Optional.of(new WireRefusal(Status.Code.PERMISSION_DENIED, "REVOKED", Optional.empty())),
                WireRefusal.of(Status.PERMISSION_DENIED.asRuntimeException(trailers)));
        assertThrows(IllegalArgumentException.class, () -> Refusal.detailed(TestReason.BROKEN, "x", "PCR 4 differs"));
    }
}
