package dev.sextant.attestation.eventlog;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.sextant.attestation.tpmstructures.TpmFormatException;

import java.util.Map;

/** Fuzz target for the event log parser and replay: only their declared exceptions may escape. */
class EventLogParserFuzzTest {

    @FuzzTest(maxDuration = "60s")
    void parse(byte[] log) {
        try {
            RawEventLog parsed = new EventLogParser().parse(log);
            new EventLogReplay().replay(parsed, Map.of());
        } catch (TpmFormatException | EventLogMismatch expected) {
            // declared rejections
        }
    }
}
