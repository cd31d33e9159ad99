package dev.sextant.measuredboot.predict;

import dev.sextant.attestation.digest.Sha256;
import dev.sextant.measuredboot.io.ArraySource;
import dev.sextant.measuredboot.testing.TestPe;
import dev.sextant.measuredboot.testing.TestPe.Sec;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Golden vectors, needing no host tool. The PCR 11 values were computed by systemd-measure 254
 * ({@code calculate --bank=sha256 --phase=}) from files holding the same section contents.
 */
@DisplayName("PCR prediction golden vectors")
class GoldenPredictionTest {
    private static final HexFormat HEX = HexFormat.of();

    /** Sections deliberately in a non-canonical file order, with a .pcrsig the stub must not measure. */
    private static byte[] uki(int stub, boolean withPcrsig) {
        return uki(stub, withPcrsig, "HALLO".getBytes(StandardCharsets.US_ASCII));
    }

    private static byte[] uki(int stub, boolean withPcrsig, byte[] linux) {
        List<Sec> s = new java.util.ArrayList<>(List.of(
                Sec.of(".sbat", "sbat,1\n"), Sec.of(".uname", "6.1.0-test"), Sec.of(".initrd", "initrd!"),
                Sec.of(".cmdline", " console=ttyS0\tro \n"), Sec.of(".osrel", "foobar"), new Sec(".linux", linux, linux.length),
                Sec.of(".sdmagic", TestPe.sdmagic(stub))));
        if (withPcrsig) {
            s.add(Sec.of(".pcrsig", "{}"));
        }
        return TestPe.build(s);
    }

    private static byte[] pcr11(byte[] uki) throws Exception {
        PcrBank bank = new PcrBank(11);
        new Pcr11Rule().apply(Uki.read(new ArraySource(uki)), bank);
        return bank.value(11);
    }

    @Test
    @DisplayName("the two fixed PCR 4 events are the digests PFP-conformant firmware logs")
    void pcr4Constants() {
        assertEquals("3d6772b4f84ed47595d72a2c4c5ffd15f5bb72c7507fe26f2aaee2c69d5633ba",
                HEX.formatHex(Sha256.of(Pcr4Rule.CALLING.getBytes(StandardCharsets.US_ASCII))));
        assertEquals("df3f619804a92fdb4057192dc43dd748ea778adc52bc498ce80524c014b81119", HEX.formatHex(Sha256.of(new byte[4])));
    }

    @Test
    @DisplayName("stub 254 measures .linux .osrel .cmdline .initrd .uname .sbat in canonical order, skipping .pcrsig")
    void pcr11Stub254() throws Exception {
        assertEquals("a0570aa3e5b3db163a9af050f85fcaccc5ac16959cf542e10a5d0ef225764aa5", HEX.formatHex(pcr11(uki(254, true))));
    }

    @Test
    @DisplayName("stub 252 does not know .uname and .sbat, so it leaves them out of PCR 11")
    void pcr11Stub252() throws Exception {
        assertEquals("387b2d0dcdb9c179369b837d39a884949ef8b2553300fe587c47108f471559cf", HEX.formatHex(pcr11(uki(252, false))));
    }

    @Test
    @DisplayName("a UKI holding only .linux = HALLO gives systemd-measure's value")
    void pcr11LinuxOnly() throws Exception {
        byte[] uki = TestPe.build(List.of(Sec.of(".linux", "HALLO"), Sec.of(".sdmagic", TestPe.sdmagic(254))));
        assertEquals("82cc0f6d29dbfe3a967df972e674b8fe5f4c95c286afe1d6e12c8014d7d108b4", HEX.formatHex(pcr11(uki)));
    }

    @Test
    @DisplayName("PCR 9 is the mangled cmdline as UTF-16LE with NUL, then the initrd")
    void pcr9() throws Exception {
        assertEquals("63006f006e0073006f006c0065003d0074007400790053003000200072006f000000",
                HEX.formatHex(Pcr9Rule.loadOptions(" console=ttyS0\tro \n".getBytes(StandardCharsets.US_ASCII))));
        PcrBank bank = new PcrBank(9);
        new Pcr9Rule().apply(Uki.read(new ArraySource(uki(254, false))), bank);
        assertEquals("7ef952fb8db4e5723cab38eb5bd33cb33238d12621b182f5957ec37b503d4b52", HEX.formatHex(bank.value(9)));
    }

    @Test
    @DisplayName("systemd's cmdline mangling drops outer whitespace and turns control characters into spaces")
    void mangle() {
        assertEquals("a  b c", Pcr9Rule.mangle("\t\n a\r\nb\u007fc \n\n"));
        assertEquals("", Pcr9Rule.mangle(" \n"));
        assertEquals("quiet", new String(Pcr9Rule.loadOptions("quiet\0garbage".getBytes(StandardCharsets.US_ASCII)),
                StandardCharsets.UTF_16LE).replace("\0", ""));
    }

    @Test
    @DisplayName("a section is measured over VirtualSize, zero-filled beyond its raw data")
    void virtualSizeZeroFill() throws Exception {
        byte[] uki = TestPe.build(List.of(new Sec(".linux", "HALLO".getBytes(StandardCharsets.US_ASCII), 8),
                Sec.of(".sdmagic", TestPe.sdmagic(254))));
        PcrBank expected = new PcrBank(11);
        expected.measure(11, ".linux\0".getBytes(StandardCharsets.US_ASCII), "name");
        expected.measure(11, "HALLO\0\0\0".getBytes(StandardCharsets.US_ASCII), "data");
        assertEquals(HEX.formatHex(expected.value(11)), HEX.formatHex(pcr11(uki)));
    }

    @Test
    @DisplayName("PCR 9 is refused for a UKI with .pcrsig, whose generated cpio the stub appends to the initrd")
    void pcr9RefusesPcrsig() throws Exception {
        Uki uki = Uki.read(new ArraySource(uki(254, true)));
        UnpredictableUkiException e = assertThrows(UnpredictableUkiException.class, () -> new Pcr9Rule().apply(uki, new PcrBank(9)));
        assertTrue(e.getMessage().contains(".pcrsig"));
    }

    @Test
    @DisplayName("a .linux section that is not a PE is reported as such, at its file offset")
    void linuxNotPe() {
        var e = assertThrows(dev.sextant.measuredboot.io.MalformedImageException.class,
                () -> new PcrPredictor().predict(new ArraySource(uki(254, false))));
        assertTrue(e.getMessage().startsWith("kernel PE in .linux"), e.getMessage());
    }

    @Test
    @DisplayName("a PE without .sdmagic, or with a stub older than 252, is refused")
    void refusesUnknownStubs() {
        byte[] noMagic = TestPe.build(List.of(Sec.of(".linux", "HALLO")));
        assertThrows(UnpredictableUkiException.class, () -> Uki.read(new ArraySource(noMagic)));
        byte[] old = TestPe.build(List.of(Sec.of(".linux", "HALLO"), Sec.of(".sdmagic", TestPe.sdmagic(251))));
        UnpredictableUkiException e = assertThrows(UnpredictableUkiException.class, () -> Uki.read(new ArraySource(old)));
        assertTrue(e.getMessage().contains("251"));
    }

    @Test
    @DisplayName("the predictor covers PCR 4, 9, 11 and keeps 12, 13 and 15 at zero")
    void fullPrediction() throws Exception {
        byte[] kernel = TestPe.build(List.of(Sec.of(".text", "kernel")));
        Prediction p = new PcrPredictor().predict(new ArraySource(uki(254, false, kernel)));
        assertEquals(List.of(4, 9, 11, 12, 13, 15), List.copyOf(p.pcrs().keySet()));
        for (int zero : new int[] {12, 13, 15}) {
            assertEquals(HEX.formatHex(new byte[32]), HEX.formatHex(p.pcr(zero)));
        }
        assertEquals("7ef952fb8db4e5723cab38eb5bd33cb33238d12621b182f5957ec37b503d4b52", HEX.formatHex(p.pcr(9)));
        assertEquals(4, p.events().stream().filter(e -> e.pcr() == 4).count());
        assertEquals("254.1-test", p.stub().full());
    }
}
