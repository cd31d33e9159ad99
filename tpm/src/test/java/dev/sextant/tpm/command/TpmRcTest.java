package dev.sextant.tpm.command;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TpmRcTest {
    @Test
    @DisplayName("a format-1 code names the error and the handle it concerns")
    void formatOneHandle() {
        assertEquals("TPM_RC_HANDLE (0x18b): handle 1", TpmRc.describe(0x18B));
    }

    @Test
    @DisplayName("a format-1 code with the P bit names the parameter")
    void formatOneParameter() {
        assertEquals("TPM_RC_VALUE (0x3c4): parameter 3", TpmRc.describe(0x3C4));
    }

    @Test
    @DisplayName("a format-1 code with the S bit names the session")
    void formatOneSession() {
        assertEquals("TPM_RC_AUTH_FAIL (0x98e): session 1", TpmRc.describe(0x98E));
    }

    @Test
    @DisplayName("a format-0 error and a warning are named")
    void formatZero() {
        assertEquals("TPM_RC_NV_DEFINED (0x14c)", TpmRc.describe(0x14C));
        assertEquals("TPM_RC_INITIALIZE (0x100)", TpmRc.describe(0x100));
        assertEquals("TPM_RC_OBJECT_MEMORY (0x902)", TpmRc.describe(0x902));
        assertEquals("TPM_RC_REFERENCE_H0 (0x910)", TpmRc.describe(0x910));
        assertEquals("TPM_RC_REFERENCE_S1 (0x919)", TpmRc.describe(0x919));
    }

    @Test
    @DisplayName("unknown, vendor and TPM 1.2 codes still produce a message with the number")
    void unknown() {
        assertTrue(TpmRc.describe(0x17F).contains("0x17f"));
        assertTrue(TpmRc.describe(0x500).startsWith("vendor"));
        assertTrue(TpmRc.describe(0x01E).startsWith("TPM 1.2"));
    }

    @Test
    @DisplayName("the base of a numbered format-1 code is its plain error code")
    void base() {
        assertEquals(TpmRc.HANDLE, TpmRc.base(0x18B));
        assertEquals(TpmRc.NV_DEFINED, TpmRc.base(0x14C));
    }

    @Test
    @DisplayName("a TpmException message names the command and the decoded code")
    void exceptionMessage() {
        TpmException e = new TpmException(TpmCc.QUOTE, 0x18B);
        assertEquals("TPM2_Quote failed: TPM_RC_HANDLE (0x18b): handle 1", e.getMessage());
        assertTrue(e.is(TpmRc.HANDLE));
    }
}
