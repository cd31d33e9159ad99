package dev.sextant.localcluster.qemu;

import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the node's sextant-pcrs.service printed on the console: "SEXTANT-PCR n hex" for the SHA-256
 * PCRs 4 9 11 12 13 15 and "SEXTANT-EVENTLOG base64" of the firmware event log. The console is
 * written by the guest, so it is read strictly: a malformed line is an error, not skipped. This is
 * a diagnostic channel for tests and `mini up`, not evidence: quotes are what verifiers trust.
 */
public record PcrConsoleReport(Map<Integer, byte[]> pcrs, Optional<byte[]> eventLog) {
    /** The PCRs the node prints, in order; its last PCR line is for PCR 15. */
    public static final List<Integer> PRINTED_PCRS = List.of(4, 9, 11, 12, 13, 15);
    /** A console line that says the report is complete. */
    public static final Pattern DONE = Pattern.compile("SEXTANT-PCRS-DONE|SEXTANT-PCR-ERROR.*");

    private static final Pattern PCR = Pattern.compile("SEXTANT-PCR (\\d{1,2}) (\\S*)");
    private static final Pattern EVENT_LOG = Pattern.compile("SEXTANT-EVENTLOG (\\S*)");

    public PcrConsoleReport {
        pcrs = Map.copyOf(pcrs);
    }

    /** Reads the report from console lines; other lines are ignored. */
    public static PcrConsoleReport parse(List<String> lines) throws ConsoleFormatException {
        Map<Integer, byte[]> pcrs = new TreeMap<>();
        byte[] eventLog = null;
        for (String line : lines) {
            Matcher pcr = PCR.matcher(line);
            Matcher log = EVENT_LOG.matcher(line);
            if (pcr.find()) {
                pcrs.put(Integer.parseInt(pcr.group(1)), sha256(pcr.group(2), line));
            } else if (log.find()) {
                eventLog = base64(log.group(1), line);
            }
        }
        for (int index : PRINTED_PCRS) {
            if (!pcrs.containsKey(index)) {
                throw new ConsoleFormatException("the console shows no SEXTANT-PCR line for PCR " + index);
            }
        }
        return new PcrConsoleReport(pcrs, Optional.ofNullable(eventLog));
    }

    /** The SHA-256 value of PCR {@code index}, which must have been printed. */
    public byte[] pcr(int index) {
        byte[] value = pcrs.get(index);
        if (value == null) {
            throw new IllegalArgumentException("PCR " + index + " is not in the report; it has " + pcrs.keySet());
        }
        return value.clone();
    }

    public String pcrHex(int index) {
        return HexFormat.of().formatHex(pcr(index));
    }

    private static byte[] sha256(String hex, String line) throws ConsoleFormatException {
        if (hex.length() != 64) {
            throw new ConsoleFormatException("a SHA-256 PCR has 64 hex digits, not " + hex.length() + ": " + line);
        }
        try {
            return HexFormat.of().parseHex(hex);
        } catch (IllegalArgumentException e) {
            throw new ConsoleFormatException("not hexadecimal: " + line);
        }
    }

    private static byte[] base64(String text, String line) throws ConsoleFormatException {
        try {
            return Base64.getDecoder().decode(text);
        } catch (IllegalArgumentException e) {
            throw new ConsoleFormatException("the event log line is not base64 (" + e.getMessage()
                    + "), " + line.length() + " characters");
        }
    }
}
