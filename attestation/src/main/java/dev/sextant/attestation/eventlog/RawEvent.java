package dev.sextant.attestation.eventlog;

import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/**
 * One TCG_PCR_EVENT2 (PFP §10.2.2) exactly as the untrusted log states it. Nothing here is verified:
 * replay checks only pcrIndex and digests, never the type or data (go-attestation's disclosure).
 *
 * @param sequence      position in the log, 0 being the Spec ID header
 * @param pcrIndex      PCR the event claims to extend
 * @param untrustedType event type; not covered by any digest
 * @param digests       TPM_ALG_ID to digest
 * @param data          event data
 */
public record RawEvent(int sequence, int pcrIndex, long untrustedType, Map<Integer, byte[]> digests, byte[] data) {
    /** EV_NO_ACTION (PFP §10.4.1): informational, never extended into a PCR. */
    public static final long EV_NO_ACTION = 0x00000003L;

    public RawEvent {
        Map<Integer, byte[]> copy = new TreeMap<>();
        digests.forEach((alg, d) -> copy.put(alg, d.clone()));
        digests = Collections.unmodifiableMap(copy);
        data = data.clone();
    }

    @Override
    public byte[] data() { return data.clone(); }

    /** The digest for one bank, or null when the event has none for it. */
    public byte[] digest(int hashAlg) {
        byte[] d = digests.get(hashAlg);
        return d == null ? null : d.clone();
    }
}
