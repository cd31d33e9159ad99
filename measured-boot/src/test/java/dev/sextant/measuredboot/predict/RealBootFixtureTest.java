package dev.sextant.measuredboot.predict;

import dev.sextant.attestation.digest.Sha256;
import dev.sextant.measuredboot.testing.TcgLog;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The event log and PCRs captured from a real QEMU/OVMF/swtpm boot of the mkosi node image
 * (systemd-stub 252, see src/test/resources/boot/README.md), for which {@code measure image}
 * predicted all six PCRs exactly. The UKI itself is too large to keep, so these tests pin the
 * structure the rules assume: which events, in which order, with which fixed digests.
 */
@DisplayName("The captured real boot of the node image")
class RealBootFixtureTest {
    private static final HexFormat HEX = HexFormat.of();
    private static List<TcgLog.Event> log;
    private static Map<Integer, String> pcrs;

    @BeforeAll
    static void load() throws Exception {
        try (InputStream in = RealBootFixtureTest.class.getResourceAsStream("/boot/mkosi-stub252-eventlog.bin")) {
            log = TcgLog.parse(in.readAllBytes());
        }
        pcrs = new HashMap<>();
        try (InputStream in = RealBootFixtureTest.class.getResourceAsStream("/boot/mkosi-stub252-pcrs.txt")) {
            new String(in.readAllBytes(), StandardCharsets.US_ASCII).lines()
                    .map(l -> l.split(" ")).forEach(f -> pcrs.put(Integer.parseInt(f[1]), f[2]));
        }
    }

    private static List<TcgLog.Event> events(int pcr) {
        return log.stream().filter(e -> e.pcr() == pcr).toList();
    }

    @Test
    @DisplayName("replaying its SHA-256 events gives the PCR values the guest read, and 12, 13, 15 saw no event")
    void replays() {
        for (int pcr : PcrPredictor.PCRS) {
            PcrBank bank = new PcrBank(pcr);
            events(pcr).forEach(e -> bank.extend(pcr, e.sha256(), "logged"));
            assertEquals(pcrs.get(pcr), HEX.formatHex(bank.value(pcr)), "PCR " + pcr);
        }
    }

    @Test
    @DisplayName("PCR 4 holds exactly the action, the separator, the UKI and the kernel, as Pcr4Rule predicts")
    void pcr4Shape() {
        List<TcgLog.Event> e = events(4);
        assertEquals(List.of(TcgLog.EV_EFI_ACTION, TcgLog.EV_SEPARATOR, TcgLog.EV_EFI_BOOT_SERVICES_APPLICATION,
                TcgLog.EV_EFI_BOOT_SERVICES_APPLICATION), e.stream().map(TcgLog.Event::type).toList());
        assertEquals(HEX.formatHex(Sha256.of(Pcr4Rule.CALLING.getBytes(StandardCharsets.US_ASCII))), HEX.formatHex(e.get(0).sha256()));
        assertEquals(HEX.formatHex(Sha256.of(new byte[4])), HEX.formatHex(e.get(1).sha256()));
    }

    @Test
    @DisplayName("PCR 9 holds the LoadOptions tag then the initrd tag, whose digest equals that of the .initrd in PCR 11")
    void pcr9Shape() {
        List<TcgLog.Event> e = events(9);
        assertEquals(List.of(TcgLog.EV_EVENT_TAG, TcgLog.EV_EVENT_TAG), e.stream().map(TcgLog.Event::type).toList());
        assertEquals(HEX.formatHex(events(11).get(7).sha256()), HEX.formatHex(e.get(1).sha256()));
    }

    @Test
    @DisplayName("PCR 11 holds name and data of .linux .osrel .cmdline .initrd in canonical order: stub 252 skips .uname and .sbat")
    void pcr11Shape() {
        List<TcgLog.Event> e = events(11);
        List<String> names = List.of(".linux", ".osrel", ".cmdline", ".initrd");
        assertEquals(names.size() * 2, e.size());
        for (int i = 0; i < names.size(); i++) {
            byte[] nameNul = (names.get(i) + "\0").getBytes(StandardCharsets.US_ASCII);
            assertEquals(TcgLog.EV_IPL, e.get(2 * i).type());
            assertEquals(HEX.formatHex(Sha256.of(nameNul)), HEX.formatHex(e.get(2 * i).sha256()), names.get(i));
        }
        assertEquals(List.of(UkiSection.LINUX, UkiSection.OSREL, UkiSection.CMDLINE, UkiSection.INITRD),
                UkiSection.knownTo(252).stream().filter(s -> names.contains(s.sectionName())).toList());
    }
}
