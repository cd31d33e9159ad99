package dev.sextant.measuredboot.predict;

import dev.sextant.measuredboot.io.ByteSource;
import dev.sextant.measuredboot.io.MalformedImageException;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Optional;

/**
 * PCR 11 as systemd-stub extends it (stub.c {@code measure_sections}, mirrored by
 * systemd-measure's {@code measure_kernel}): for each section the stub release knows and measures,
 * in canonical order, EV_IPL SHA-256(name + NUL) then EV_IPL SHA-256(data[0, VirtualSize]).
 * Absent and empty sections are skipped. Userspace phase measurements (systemd-pcrphase) come
 * later and are out of scope: the image masks them.
 */
public final class Pcr11Rule {
    public static final int PCR = 11;

    public void apply(Uki uki, PcrBank bank) throws MalformedImageException, IOException {
        for (UkiSection s : UkiSection.values()) {
            if (!s.measuredBy(uki.stub())) {
                continue;
            }
            Optional<ByteSource> data = uki.data(s);
            if (data.isEmpty() || data.get().size() == 0) {
                continue;
            }
            byte[] name = Arrays.copyOf(s.sectionName().getBytes(StandardCharsets.US_ASCII), s.sectionName().length() + 1);
            bank.measure(PCR, name, "EV_IPL section name " + s.sectionName());
            bank.extend(PCR, data.get().sha256(), "EV_IPL section data " + s.sectionName()
                    + " (" + data.get().size() + " bytes)");
        }
    }
}
