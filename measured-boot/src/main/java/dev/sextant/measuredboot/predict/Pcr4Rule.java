package dev.sextant.measuredboot.predict;

import dev.sextant.measuredboot.io.ByteSource;
import dev.sextant.measuredboot.io.MalformedImageException;
import dev.sextant.measuredboot.pe.Authenticode;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * PCR 4 (boot manager code) for a UKI started by OVMF directly from a boot option, with the VM
 * defined as in platform.md (-nodefaults, one boot disk, no option ROMs), TCG PC Client PFP
 * §3.3.4.5 / §10.4.4:
 * <ol>
 *   <li>EV_EFI_ACTION "Calling EFI Application from Boot Option" (first boot attempt),</li>
 *   <li>EV_SEPARATOR 00000000 (OVMF measures the separators of PCR 0-7 at ReadyToBoot),</li>
 *   <li>EV_EFI_BOOT_SERVICES_APPLICATION: Authenticode of the UKI,</li>
 *   <li>EV_EFI_BOOT_SERVICES_APPLICATION: Authenticode of {@code .linux}, which systemd-stub
 *       (252.39 and 254 alike) starts through LoadImage, so the firmware measures it too.</li>
 * </ol>
 */
public final class Pcr4Rule {
    public static final int PCR = 4;
    static final String CALLING = "Calling EFI Application from Boot Option";

    public void apply(Uki uki, PcrBank bank) throws MalformedImageException, IOException {
        bank.measure(PCR, CALLING.getBytes(StandardCharsets.US_ASCII), "EV_EFI_ACTION \"" + CALLING + "\"");
        bank.measure(PCR, new byte[4], "EV_SEPARATOR");
        bank.extend(PCR, Authenticode.sha256(uki.pe()), "EV_EFI_BOOT_SERVICES_APPLICATION UKI (Authenticode)");
        Optional<ByteSource> linux = uki.data(UkiSection.LINUX);
        if (linux.isPresent()) {
            byte[] kernel;
            try {
                kernel = Authenticode.sha256(linux.get());
            } catch (MalformedImageException e) {
                long base = uki.pe().section(UkiSection.LINUX.sectionName()).orElseThrow().pointerToRawData();
                throw new MalformedImageException("kernel PE in .linux", base + e.offset(), e.getMessage(), e);
            }
            bank.extend(PCR, kernel, "EV_EFI_BOOT_SERVICES_APPLICATION .linux loaded by systemd-stub (Authenticode)");
        }
    }
}
