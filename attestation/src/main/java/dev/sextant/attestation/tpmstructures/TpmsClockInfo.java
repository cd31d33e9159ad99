package dev.sextant.attestation.tpmstructures;

/** TPMS_CLOCK_INFO (TPM 2.0 Part 2, §10.11.1). */
public record TpmsClockInfo(long clock, long resetCount, long restartCount, boolean safe) {
    static TpmsClockInfo read(TpmReader r) throws TpmFormatException {
        long clock = r.u64("clockInfo.clock");
        long reset = r.u32("clockInfo.resetCount");
        long restart = r.u32("clockInfo.restartCount");
        int safe = r.u8("clockInfo.safe");
        // TPMI_YES_NO admits only 0 and 1 (Part 2, §9.2).
        if (safe > 1) {
            throw r.fail("clockInfo.safe", "TPMI_YES_NO value " + safe);
        }
        return new TpmsClockInfo(clock, reset, restart, safe == 1);
    }
}
