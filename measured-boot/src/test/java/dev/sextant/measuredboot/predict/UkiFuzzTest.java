package dev.sextant.measuredboot.predict;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.sextant.measuredboot.io.ArraySource;
import dev.sextant.measuredboot.io.MalformedImageException;
import dev.sextant.measuredboot.pe.PeParser;
import dev.sextant.measuredboot.pe.PeSection;
import dev.sextant.measuredboot.testing.FuzzCorpus;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Fuzz target for the PCR 4/9/11 prediction of a UKI (what {@code sextant measure} runs on an
 * image's boot loader): any bytes either predict or raise {@link MalformedImageException} or
 * {@link UnpredictableUkiException}.
 */
class UkiFuzzTest {
    /**
     * The predictor hashes each section as mapped, VirtualSize bytes zero-filled past the file, as
     * systemd-stub measures it; a header claiming 4 GiB costs seconds of hashing zeros, which is the
     * stub's semantics rather than a defect, and would only slow the fuzzer down. Such inputs stop
     * after parsing.
     */
    private static final long MAX_MAPPED = 1 << 20;

    @FuzzTest(maxDuration = "60s")
    void predict(byte[] image) throws IOException {
        try {
            if (PeParser.parse(new ArraySource(image)).sections().stream().mapToLong(PeSection::virtualSize)
                    .anyMatch(size -> size > MAX_MAPPED)) {
                return;
            }
            new PcrPredictor().predict(new ArraySource(image));
        } catch (MalformedImageException | UnpredictableUkiException expected) {
            // the declared rejections
        }
    }

    @ParameterizedTest(name = "{0}: {1}")
    @CsvSource({
            "uki-stub252.efi, predicted",
            "uki-stub252-cmdline-only.efi, predicted",
            "uki-stub252-cmdline-whitespace.efi, predicted",
            "uki-stub252-signed.efi, predicted",
            "uki-stub254.efi, predicted",
            "uki-stub254-splash-uname.efi, predicted",
            "testpe-stub252-padded-sections.efi, predicted",
            "uki-stub254-pcrpkey.efi, the UKI carries .pcrpkey",
            "testpe-stub251.efi, predates 252",
            "testpe-no-sdmagic.efi, no .sdmagic section",
            "vmlinuz-stand-in.efi, no .sdmagic section"})
    @DisplayName("each committed seed UKI is predicted, or refused for the reason its name gives")
    void seedPredictsOrIsRefused(String seed, String outcome) throws Exception {
        ArraySource uki = new ArraySource(FuzzCorpus.seed(UkiFuzzTest.class, "predict", seed));
        if (outcome.equals("predicted")) {
            assertEquals(PcrPredictor.PCRS.length, new PcrPredictor().predict(uki).pcrs().size());
        } else {
            UnpredictableUkiException e = assertThrows(UnpredictableUkiException.class,
                    () -> new PcrPredictor().predict(uki));
            assertTrue(e.getMessage().contains(outcome), e.getMessage());
        }
    }
}
