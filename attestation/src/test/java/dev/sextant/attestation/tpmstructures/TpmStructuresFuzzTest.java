package dev.sextant.attestation.tpmstructures;

import com.code_intelligence.jazzer.junit.FuzzTest;

/** Fuzz targets for each TPM structure parser: TpmFormatException is the only allowed failure. */
class TpmStructuresFuzzTest {

    @FuzzTest(maxDuration = "60s")
    void tpmsAttest(byte[] data) {
        try {
            TpmsAttest a = TpmsAttest.parse(data);
            assertSame(data, a.raw());
        } catch (TpmFormatException expected) {
            // declared rejection
        }
    }

    @FuzzTest(maxDuration = "60s")
    void tpmtPublic(byte[] data) {
        try {
            TpmtPublic p = TpmtPublic.parse(data);
            assertSame(data, p.raw());
            p.name();
            p.toJavaPublicKey();
        } catch (TpmFormatException expected) {
            // declared rejection
        }
    }

    @FuzzTest(maxDuration = "60s")
    void tpmtSignature(byte[] data) {
        try {
            assertSame(data, TpmtSignature.parse(data).raw());
        } catch (TpmFormatException expected) {
            // declared rejection
        }
    }

    @FuzzTest(maxDuration = "60s")
    void pcrSelection(byte[] data) {
        try {
            assertSame(data, PcrSelection.parse(data).raw());
        } catch (TpmFormatException expected) {
            // declared rejection
        }
    }

    /** A parsed structure keeps exactly the bytes it came from. */
    private static void assertSame(byte[] input, byte[] raw) {
        if (!java.util.Arrays.equals(input, raw)) {
            throw new AssertionError("raw bytes differ from the input");
        }
    }
}
