package dev.sextant.measuredboot.predict;

import dev.sextant.attestation.digest.Sha256;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.HexFormat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

@DisplayName("The simulated PCR bank")
class PcrBankTest {
    @Test
    @DisplayName("extends as SHA-256(old || digest) from zero and records a described event per extend")
    void extend() {
        PcrBank bank = new PcrBank(4);
        byte[] d = Sha256.of(new byte[4]);
        bank.extend(4, d, "EV_SEPARATOR");
        byte[] expected = Sha256.of(concat(new byte[32], d));
        assertEquals(HexFormat.of().formatHex(expected), HexFormat.of().formatHex(bank.value(4)));
        assertEquals(1, bank.events().size());
        assertEquals("EV_SEPARATOR", bank.events().get(0).description());
    }

    @Test
    @DisplayName("refuses untracked PCRs and digests that are not 32 bytes")
    void refuses() {
        PcrBank bank = new PcrBank(4);
        assertThrows(IllegalArgumentException.class, () -> bank.extend(5, new byte[32], "x"));
        assertThrows(IllegalArgumentException.class, () -> bank.extend(4, new byte[20], "x"));
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
