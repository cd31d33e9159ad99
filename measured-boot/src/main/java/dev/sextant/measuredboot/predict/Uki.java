package dev.sextant.measuredboot.predict;

import dev.sextant.measuredboot.io.ByteSource;
import dev.sextant.measuredboot.io.MalformedImageException;
import dev.sextant.measuredboot.pe.PeFile;
import dev.sextant.measuredboot.pe.PeParser;
import dev.sextant.measuredboot.pe.PeSection;

import java.io.IOException;
import java.util.Optional;

/** A unified kernel image: its PE structure and the systemd-stub release inside it. */
public record Uki(PeFile pe, StubVersion stub) {
    private static final int MAX_SDMAGIC = 4096;

    /** Parses a UKI and reads its stub release from {@code .sdmagic}. */
    public static Uki read(ByteSource src) throws MalformedImageException, IOException, UnpredictableUkiException {
        PeFile pe = PeParser.parse(src);
        PeSection magic = pe.section(".sdmagic").orElseThrow(() -> new UnpredictableUkiException(
                "the image has no .sdmagic section, so it is not a systemd-stub UKI"));
        StubVersion stub = StubVersion.fromSdmagic(pe.mappedBytes(magic, MAX_SDMAGIC))
                .orElseThrow(() -> new UnpredictableUkiException(".sdmagic does not name a systemd-stub release"));
        if (stub.major() < StubVersion.OLDEST_SUPPORTED) {
            throw new UnpredictableUkiException("systemd-stub " + stub.full() + " predates "
                    + StubVersion.OLDEST_SUPPORTED + " and measures sections differently");
        }
        return new Uki(pe, stub);
    }

    /** The section's mapped bytes if the UKI has it (first match, as the stub's lookup does). */
    public Optional<ByteSource> data(UkiSection s) throws MalformedImageException {
        Optional<PeSection> sec = pe.section(s.sectionName());
        return sec.isPresent() ? Optional.of(pe.mappedData(sec.get())) : Optional.empty();
    }
}
