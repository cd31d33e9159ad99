package dev.sextant.attestation.eventlog;

import dev.sextant.attestation.Purpose;
import dev.sextant.attestation.testkit.SoftwareTpmAttester;
import dev.sextant.attestation.testkit.TestEvent;
import dev.sextant.attestation.testkit.TestEventLog;
import dev.sextant.attestation.testkit.SoftwareTpmOptions;
import dev.sextant.attestation.testkit.TestPki;
import dev.sextant.attestation.tpmstructures.TpmAlg;
import dev.sextant.attestation.tpmstructures.TpmFormatException;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class EventLogTest {
    private static final List<TestEvent> EVENTS = List.of(
            new TestEvent(4, TestEvent.EV_IPL, bytes("kernel")),
            new TestEvent(9, TestEvent.EV_IPL, bytes("initrd")),
            new TestEvent(4, TestEvent.EV_IPL, bytes("second app")));
    private final EventLogParser parser = new EventLogParser();

    @Test
    @DisplayName("parses a crypto-agile log: the Spec ID header's digest sizes and every event in order")
    void parsesCryptoAgileLog() throws Exception {
        RawEventLog log = parser.parse(TestEventLog.write(EVENTS));

        assertEquals(Map.of(TpmAlg.SHA256, 32), log.digestSizes());
        assertEquals(3, log.events().size());
        assertEquals(9, log.events().get(1).pcrIndex());
        assertEquals("initrd", new String(log.events().get(1).data(), StandardCharsets.UTF_8));
    }

    @Test
    @DisplayName("replays to the quoted PCRs and exposes only the extended events")
    void replaysToQuotedPcrs() throws Exception {
        SortedMap<Integer, byte[]> quoted = pcrsFor(EVENTS);

        List<ReplayedEvent> replayed = new EventLogReplay().replay(parser.parse(TestEventLog.write(EVENTS)), quoted);

        assertEquals(3, replayed.size());
        assertEquals(TestEvent.EV_IPL, replayed.get(0).untrustedType());
    }

    @Test
    @DisplayName("names every PCR whose events do not replay to the quoted value")
    void namesEveryMismatchedPcr() throws Exception {
        SortedMap<Integer, byte[]> quoted = pcrsFor(EVENTS);
        quoted.put(4, new byte[32]);
        quoted.remove(9);

        EventLogMismatch r = assertThrows(EventLogMismatch.class,
                () -> new EventLogReplay().replay(parser.parse(TestEventLog.write(EVENTS)), quoted));

        assertTrue(r.getMessage().contains("PCR 4 (replays to") && r.getMessage().contains("PCR 9 (replays to"), r.getMessage());
        assertTrue(r.getMessage().contains("not quoted"), r.getMessage());
    }

    @Test
    @DisplayName("accepts a prefix only at event boundaries, rejects every other truncation and a non-agile log")
    void rejectsTruncationAndNonAgileLogs() {
        byte[] log = TestEventLog.write(EVENTS);
        int accepted = 0;
        for (int n = 0; n < log.length; n++) {
            try {
                parser.parse(Arrays.copyOf(log, n));
                accepted++;
            } catch (TpmFormatException expected) {
                // Every cut inside a record must fail with the parser's own exception, nothing else.
            }
        }
        assertEquals(EVENTS.size(), accepted, "the header alone and the first two events are whole logs");
        byte[] sha1Log = log.clone();
        sha1Log[4] = 0x0D;
        TpmFormatException e = assertThrows(TpmFormatException.class, () -> parser.parse(sha1Log));
        assertTrue(e.getMessage().contains("not a crypto-agile log"), e.getMessage());
    }

    @Test
    @DisplayName("rejects an event whose size field claims more bytes than the log holds")
    void rejectsOversizedEvent() {
        byte[] log = TestEventLog.write(List.of(new TestEvent(4, TestEvent.EV_IPL, bytes("x"))));
        log[log.length - 2] = (byte) 0xff;
        TpmFormatException e = assertThrows(TpmFormatException.class, () -> parser.parse(log));
        assertTrue(e.getMessage().contains("eventSize"), e.getMessage());
    }

    @Test
    @DisplayName("the software TPM's own event log replays to its PCRs")
    void softwareTpmLogReplays() throws Exception {
        SoftwareTpmAttester attester = new SoftwareTpmAttester(new TestPki("ca"), SoftwareTpmOptions.defaults());
        byte[] log = attester.attest(Purpose.ATLS_SERVER, new byte[8], new byte[32]).getEventLog().toByteArray();
        assertEquals(4, new EventLogReplay().replay(parser.parse(log), attester.pcrValues()).size());
    }

    private static SortedMap<Integer, byte[]> pcrsFor(List<TestEvent> events) throws Exception {
        SortedMap<Integer, byte[]> pcrs = new TreeMap<>();
        for (TestEvent e : events) {
            java.security.MessageDigest sha = java.security.MessageDigest.getInstance("SHA-256");
            sha.update(pcrs.getOrDefault(e.pcr(), new byte[32]));
            sha.update(java.security.MessageDigest.getInstance("SHA-256").digest(e.data()));
            pcrs.put(e.pcr(), sha.digest());
        }
        return pcrs;
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
