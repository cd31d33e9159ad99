package dev.sextant.measuredboot.predict;

import dev.sextant.measuredboot.io.FileSource;
import dev.sextant.measuredboot.testing.Fixtures;
import dev.sextant.measuredboot.testing.Tools;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The Java counterpart of systemd's {@code assert_cc(... == _UNIFIED_SECTION_MAX)}: the section
 * enum must list exactly what each real stub release knows, in its order. The stubs' own
 * {@code unified_sections[]} string tables are the reference.
 */
@DisplayName("The UKI section enum")
class UkiSectionTest {

    @Test
    @DisplayName("has unique names, starts with .linux and never measures .pcrsig")
    void shape() {
        assertEquals(UkiSection.values().length, Stream.of(UkiSection.values()).map(UkiSection::sectionName).distinct().count());
        assertEquals(UkiSection.LINUX, UkiSection.values()[0]);
        assertTrue(Stream.of(252, 253, 254, 999).noneMatch(v -> UkiSection.PCRSIG.measuredBy(StubVersion.of(v))));
    }

    @Test
    @Tag("peer")
    @DisplayName("matches the section table compiled into the host's systemd-stub (254)")
    void matchesHostStub() throws Exception {
        Path stub = Path.of(Tools.STUB_DIR, "linuxx64.efi.stub");
        if (!Files.exists(stub)) {
            Tools.skip(stub + " is not installed (systemd-boot-efi)");
        }
        assertMatches(stub);
    }

    @Test
    @Tag("peer")
    @DisplayName("matches the section table compiled into bookworm's systemd-stub (252), which the node image ships")
    void matchesBookwormStub() throws Exception {
        assertMatches(Fixtures.stub252());
    }

    private static void assertMatches(Path stub) throws Exception {
        StubVersion v;
        try (FileSource src = FileSource.open(stub)) {
            Uki self = Uki.read(src); // a bare stub carries its own .sdmagic
            v = self.stub();
        }
        List<String> table = sectionTable(Files.readAllBytes(stub));
        List<String> ours = UkiSection.knownTo(v.major()).stream().map(UkiSection::sectionName).toList();
        assertEquals(table, ours, "systemd-stub " + v.full());
    }

    /** The run of ".name" strings from ".linux" to ".pcrpkey" in the binary's read-only data. */
    private static List<String> sectionTable(byte[] bin) {
        List<String> strings = new ArrayList<>();
        int start = 0;
        for (int i = 0; i < bin.length; i++) {
            if (bin[i] == 0) {
                if (i > start) {
                    strings.add(new String(Arrays.copyOfRange(bin, start, i), StandardCharsets.ISO_8859_1));
                }
                start = i + 1;
            }
        }
        int from = strings.indexOf(".linux");
        assertTrue(from >= 0, "the stub names .linux");
        List<String> out = new ArrayList<>();
        for (String s : strings.subList(from, strings.size())) {
            if (s.matches("\\.[a-z]+")) {
                out.add(s);
                if (s.equals(".pcrpkey")) {
                    break;
                }
            }
        }
        return out;
    }
}
