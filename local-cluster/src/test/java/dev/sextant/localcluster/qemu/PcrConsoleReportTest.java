package dev.sextant.localcluster.qemu;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("The console PCR report")
class PcrConsoleReportTest {
    private static final String ZERO = "0".repeat(64);

    private static List<String> console(String pcr4) {
        List<String> lines = new ArrayList<>(List.of("[  OK  ] Started something.",
                "SEXTANT-PCR 4 " + pcr4));
        for (int n : List.of(9, 11, 12, 13, 15)) {
            lines.add("SEXTANT-PCR " + n + " " + ZERO);
        }
        lines.add("SEXTANT-EVENTLOG AAECAw==");
        lines.add("SEXTANT-PCRS-DONE");
        return lines;
    }

    @Test
    @DisplayName("reads every printed PCR and the base64 event log, ignoring other console lines")
    void readsPcrsAndEventLog() throws Exception {
        PcrConsoleReport report = PcrConsoleReport.parse(console("ab".repeat(32)));

        assertEquals("ab".repeat(32), report.pcrHex(4));
        assertArrayEquals(new byte[32], report.pcr(15));
        assertArrayEquals(new byte[] {0, 1, 2, 3}, report.eventLog().orElseThrow());
    }

    @Test
    @DisplayName("finds a report line even when a console prefix precedes it")
    void toleratesPrefix() throws Exception {
        List<String> lines = console(ZERO);
        lines.set(1, "\u001b[0m[   42.1] SEXTANT-PCR 4 " + "cd".repeat(32));

        assertEquals("cd".repeat(32), PcrConsoleReport.parse(lines).pcrHex(4));
    }

    @Test
    @DisplayName("rejects a console that lacks one of the PCRs, naming it")
    void rejectsMissingPcr() {
        List<String> lines = console(ZERO);
        lines.removeIf(l -> l.startsWith("SEXTANT-PCR 13 "));

        ConsoleFormatException e = assertThrows(ConsoleFormatException.class, () -> PcrConsoleReport.parse(lines));
        assertTrue(e.getMessage().contains("PCR 13"), e.getMessage());
    }

    @Test
    @DisplayName("rejects a PCR value that is not 32 bytes of hex")
    void rejectsShortPcr() {
        assertThrows(ConsoleFormatException.class, () -> PcrConsoleReport.parse(console("abcd")));
        assertThrows(ConsoleFormatException.class, () -> PcrConsoleReport.parse(console("zz".repeat(32))));
    }

    @Test
    @DisplayName("rejects an event log line that a console writer cut or corrupted")
    void rejectsBrokenEventLog() {
        List<String> lines = console(ZERO);
        lines.set(lines.size() - 2, "SEXTANT-EVENTLOG AAE*Aw==");

        assertThrows(ConsoleFormatException.class, () -> PcrConsoleReport.parse(lines));
    }
}
