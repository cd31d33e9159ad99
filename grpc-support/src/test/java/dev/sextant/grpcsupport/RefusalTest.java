package dev.sextant.grpcsupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import org.junit.jupiter.api.DisplayName;
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
}
