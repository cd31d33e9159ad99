package dev.sextant.attestation.eventlog;

import dev.sextant.attestation.digest.Sha256;
import dev.sextant.attestation.tpmstructures.TpmAlg;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Replays the SHA-256 digests of a {@link RawEventLog} per PCR and compares the result with the
 * quoted PCR values. Only PCRs that have events are compared: the others carry no claim from the log.
 * The events of a matching replay are the only ones handed on for interpretation.
 */
public final class EventLogReplay {
    private static final int SHA256_SIZE = 32;
    private static final byte[] STARTUP_LOCALITY = "StartupLocality\0".getBytes(StandardCharsets.US_ASCII);

    /**
     * @param quotedSha256 quoted SHA-256 PCR values by index (already checked against the quote)
     * @return the extended events in log order
     */
    public List<ReplayedEvent> replay(RawEventLog log, Map<Integer, byte[]> quotedSha256) throws EventLogMismatch {
        SortedMap<Integer, byte[]> banks = new TreeMap<>();
        List<ReplayedEvent> replayed = new ArrayList<>();
        for (RawEvent e : log.events()) {
            if (e.untrustedType() == RawEvent.EV_NO_ACTION) {
                startupLocality(e, banks);
                continue;
            }
            byte[] digest = e.digest(TpmAlg.SHA256);
            if (digest == null || digest.length != SHA256_SIZE) {
                throw new EventLogMismatch("event " + e.sequence() + " in PCR " + e.pcrIndex() + " has no SHA-256 digest");
            }
            byte[] current = banks.computeIfAbsent(e.pcrIndex(), EventLogReplay::initialValue);
            banks.put(e.pcrIndex(), extend(current, digest));
            replayed.add(new ReplayedEvent(e.sequence(), e.pcrIndex(), e.untrustedType(), digest, e.data()));
        }
        List<Integer> mismatched = new ArrayList<>();
        banks.forEach((pcr, value) -> {
            byte[] quoted = quotedSha256.get(pcr);
            if (!MessageDigest.isEqual(quoted, value)) {
                mismatched.add(pcr);
            }
        });
        if (!mismatched.isEmpty()) {
            throw new EventLogMismatch("the event log does not replay to the quoted "
                    + mismatched.stream().map(p -> "PCR " + p + describe(banks.get(p), quotedSha256.get(p)))
                    .collect(Collectors.joining(", ")));
        }
        return List.copyOf(replayed);
    }

    /**
     * PFP §10.4.5.3: a StartupLocality EV_NO_ACTION event in PCR 0 says the firmware started at
     * locality 3 or 4, so PCR 0 began as 0..0 || locality instead of all zeros.
     */
    private static void startupLocality(RawEvent e, Map<Integer, byte[]> banks) {
        byte[] data = e.data();
        if (e.pcrIndex() == 0 && data.length == STARTUP_LOCALITY.length + 1 && !banks.containsKey(0)
                && Arrays.equals(Arrays.copyOf(data, STARTUP_LOCALITY.length), STARTUP_LOCALITY)) {
            byte[] initial = new byte[SHA256_SIZE];
            initial[SHA256_SIZE - 1] = data[STARTUP_LOCALITY.length];
            banks.put(0, initial);
        }
    }

    /** PFP §2.3.4 / PTP: PCRs 17–22 (D-RTM) reset to all ones, the others to all zeros. */
    private static byte[] initialValue(int pcr) {
        byte[] v = new byte[SHA256_SIZE];
        if (pcr >= 17 && pcr <= 22) {
            Arrays.fill(v, (byte) 0xff);
        }
        return v;
    }

    private static byte[] extend(byte[] current, byte[] digest) {
        return Sha256.of(current, digest);
    }

    private static String describe(byte[] replayed, byte[] quoted) {
        String q = quoted == null ? "not quoted" : "quoted " + shortHex(quoted);
        return " (replays to " + shortHex(replayed) + ", " + q + ")";
    }

    static String shortHex(byte[] b) {
        String hex = HexFormat.of().formatHex(b);
        return hex.length() > 16 ? hex.substring(0, 16) + "…" : hex;
    }
}
