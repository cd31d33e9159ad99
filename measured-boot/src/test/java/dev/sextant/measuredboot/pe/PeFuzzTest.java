package dev.sextant.measuredboot.pe;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.sextant.measuredboot.io.ArraySource;
import dev.sextant.measuredboot.io.MalformedImageException;
import dev.sextant.measuredboot.testing.FuzzCorpus;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * Fuzz target for the PE/COFF parser and the Authenticode hash of a UKI (PCR 4): any bytes either
 * hash or raise {@link MalformedImageException}. An IOException escaping means a read went past
 * the input, which the parser's bounds checks exist to prevent; it is a finding.
 */
class PeFuzzTest {
    /** Sections read whole below; larger ones are only hashed, as the predictor hashes .linux. */
    private static final int SMALL_SECTION = 4096;

    @FuzzTest(maxDuration = "60s")
    void authenticode(byte[] image) throws IOException {
        try {
            PeFile pe = PeParser.parse(new ArraySource(image));
            Authenticode.sha256(pe);
            for (PeSection s : pe.sections()) {
                if (s.virtualSize() <= SMALL_SECTION) {
                    pe.mappedBytes(s, SMALL_SECTION);
                }
            }
        } catch (MalformedImageException expected) {
            // the one declared rejection
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"addonx64-254.efi.stub", "addonx64-254-signed.efi", "linuxx64-stub252.efi.stub",
            "linuxx64-stub254.efi.stub", "systemd-bootx64-252.efi", "systemd-bootx64-254.efi", "uki-stub252.efi",
            "uki-stub252-signed.efi", "uki-stub254.efi", "testpe-stub252-padded-sections.efi", "vmlinuz-stand-in.efi"})
    @DisplayName("each committed seed is a PE image the parser reads and hashes whole, so the fuzzer starts from valid images")
    void seedHashes(String seed) throws Exception {
        PeFile pe = PeParser.parse(new ArraySource(FuzzCorpus.seed(PeFuzzTest.class, "authenticode", seed)));
        assertEquals(32, Authenticode.sha256(pe).length);
        assertFalse(pe.sections().isEmpty());
    }
}
