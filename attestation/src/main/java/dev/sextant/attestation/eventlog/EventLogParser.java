package dev.sextant.attestation.eventlog;

import dev.sextant.attestation.tpmstructures.TpmAlg;
import dev.sextant.attestation.tpmstructures.TpmFormatException;
import dev.sextant.attestation.tpmstructures.TpmReader;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Parses the TCG PC Client crypto-agile event log (PFP §10.2): a Spec ID event in the SHA-1 log
 * format, then TCG_PCR_EVENT2 records. Little-endian throughout. Bounds every count and length.
 */
public final class EventLogParser {
    /** Far above a real firmware log (tens of KiB) yet small enough to hold in memory. */
    public static final int MAX_LOG_BYTES = 4 << 20;
    static final int MAX_EVENTS = 20_000;
    /** TPML_DIGEST_VALUES holds at most HASH_COUNT digests; 8 is more than any TPM implements. */
    static final int MAX_ALGORITHMS = 8;
    static final int MAX_DIGEST = 64;
    static final int MAX_PCR = 23;
    private static final byte[] SPEC_ID_SIGNATURE = "Spec ID Event03\0".getBytes(StandardCharsets.US_ASCII);

    public RawEventLog parse(byte[] log) throws TpmFormatException {
        if (log.length > MAX_LOG_BYTES) {
            throw new TpmFormatException("TCG_EVENT_LOG", "size", 0,
                    log.length + " bytes exceed the limit " + MAX_LOG_BYTES);
        }
        TpmReader r = new TpmReader(log, "TCG_EVENT_LOG");
        Map<Integer, Integer> sizes = readSpecIdEvent(r);
        List<RawEvent> events = new ArrayList<>();
        while (r.remaining() > 0) {
            if (events.size() >= MAX_EVENTS) {
                throw r.fail("events", "more than " + MAX_EVENTS + " events");
            }
            events.add(readEvent(r, events.size() + 1, sizes));
        }
        return new RawEventLog(sizes, events);
    }

    /** PFP §10.2.1 (TCG_PCClientPCREvent) carrying TCG_EfiSpecIDEvent (PFP §10.4.5.1). */
    private Map<Integer, Integer> readSpecIdEvent(TpmReader r) throws TpmFormatException {
        long pcr = r.u32le("specId.pcrIndex");
        long type = r.u32le("specId.eventType");
        if (pcr != 0 || type != RawEvent.EV_NO_ACTION) {
            throw r.fail("specId", "first event is not an EV_NO_ACTION in PCR 0: not a crypto-agile log");
        }
        r.bytes(20, "specId.digest");
        TpmReader e = r.slice(boundedSize(r, "specId.eventSize"), "specId.event");
        if (!Arrays.equals(e.bytes(16, "specId.signature"), SPEC_ID_SIGNATURE)) {
            throw e.fail("specId.signature", "not \"Spec ID Event03\"");
        }
        e.u32le("specId.platformClass");
        e.bytes(4, "specId.version");
        long count = e.u32le("specId.numberOfAlgorithms");
        if (count == 0 || count > MAX_ALGORITHMS) {
            throw e.fail("specId.numberOfAlgorithms", count + " is not in 1.." + MAX_ALGORITHMS);
        }
        Map<Integer, Integer> sizes = new HashMap<>();
        for (int i = 0; i < count; i++) {
            int alg = e.u16le("specId.digestSizes[" + i + "].algorithmId");
            int size = e.u16le("specId.digestSizes[" + i + "].digestSize");
            int known = TpmAlg.digestSize(alg);
            if (size == 0 || size > MAX_DIGEST || (known >= 0 && known != size) || sizes.put(alg, size) != null) {
                throw e.fail("specId.digestSizes[" + i + "]", "algorithm 0x" + Integer.toHexString(alg)
                        + " with digest size " + size + " is invalid or repeated");
            }
        }
        e.bytes(e.u8("specId.vendorInfoSize"), "specId.vendorInfo");
        e.expectEnd();
        return sizes;
    }

    /** TCG_PCR_EVENT2 (PFP §10.2.2) with TPML_DIGEST_VALUES. */
    private RawEvent readEvent(TpmReader r, int seq, Map<Integer, Integer> sizes) throws TpmFormatException {
        String at = "event[" + seq + "]";
        long pcr = r.u32le(at + ".pcrIndex");
        if (pcr > MAX_PCR) {
            throw r.fail(at + ".pcrIndex", "PCR " + pcr + " does not exist");
        }
        long type = r.u32le(at + ".eventType");
        long count = r.u32le(at + ".digests.count");
        if (count > sizes.size()) {
            throw r.fail(at + ".digests.count", count + " digests but the header declares " + sizes.size());
        }
        Map<Integer, byte[]> digests = new HashMap<>();
        for (int i = 0; i < count; i++) {
            int alg = r.u16le(at + ".digests[" + i + "].hashAlg");
            Integer size = sizes.get(alg);
            if (size == null || digests.containsKey(alg)) {
                throw r.fail(at + ".digests[" + i + "].hashAlg", "algorithm 0x" + Integer.toHexString(alg)
                        + " is undeclared or repeated");
            }
            digests.put(alg, r.bytes(size, at + ".digests[" + i + "]"));
        }
        byte[] data = r.bytes(boundedSize(r, at + ".eventSize"), at + ".event");
        return new RawEvent(seq, (int) pcr, type, digests, data);
    }

    private static int boundedSize(TpmReader r, String field) throws TpmFormatException {
        long size = r.u32le(field);
        if (size > r.remaining()) {
            throw r.fail(field, size + " bytes but only " + r.remaining() + " left");
        }
        return (int) size;
    }
}
