package dev.sextant.measuredboot.predict;

import dev.sextant.measuredboot.io.ByteSource;
import dev.sextant.measuredboot.io.MalformedImageException;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * PCR 9 as the Linux EFI stub (6.1+, drivers/firmware/efi/libstub) extends it when systemd-stub
 * starts the kernel through LoadImage/StartImage:
 * <ol>
 *   <li>EV_EVENT_TAG "LOADED_IMAGE::LoadOptions" ({@code efi_convert_cmdline}): the raw load
 *       options, which systemd-stub sets to the {@code .cmdline} section as UTF-16LE with its NUL
 *       terminator, after {@code mangle_stub_cmdline} (leading/trailing whitespace dropped, inner
 *       control characters turned into spaces),</li>
 *   <li>EV_EVENT_TAG "Linux initrd" ({@code efi_load_initrd_dev_path}): the initrd served through
 *       LINUX_EFI_INITRD_MEDIA, which is the {@code .initrd} section as mapped.</li>
 * </ol>
 * With {@code .pcrsig} or {@code .pcrpkey} the stub appends generated cpio archives to the
 * initrd; that is refused rather than approximated.
 */
public final class Pcr9Rule {
    public static final int PCR = 9;
    private static final int MAX_CMDLINE = 1 << 20;

    public void apply(Uki uki, PcrBank bank) throws MalformedImageException, IOException, UnpredictableUkiException {
        for (UkiSection generated : new UkiSection[] {UkiSection.PCRSIG, UkiSection.PCRPKEY}) {
            if (generated.knownTo(uki.stub()) && uki.pe().section(generated.sectionName()).isPresent()) {
                throw new UnpredictableUkiException("the UKI carries " + generated.sectionName()
                        + ": systemd-stub then appends a generated cpio to the initrd, which this predictor does not model");
            }
        }
        Optional<ByteSource> cmdline = uki.data(UkiSection.CMDLINE);
        if (cmdline.isPresent() && cmdline.get().size() > 0) {
            if (cmdline.get().size() > MAX_CMDLINE) {
                throw new UnpredictableUkiException(".cmdline of " + cmdline.get().size() + " bytes is implausibly large");
            }
            byte[] raw = new byte[(int) cmdline.get().size()];
            cmdline.get().readFully(0, raw, 0, raw.length);
            bank.measure(PCR, loadOptions(raw), "EV_EVENT_TAG LOADED_IMAGE::LoadOptions");
        }
        Optional<ByteSource> initrd = uki.data(UkiSection.INITRD);
        if (initrd.isPresent() && initrd.get().size() > 0) {
            bank.extend(PCR, initrd.get().sha256(), "EV_EVENT_TAG Linux initrd (" + initrd.get().size() + " bytes)");
        }
    }

    /** The exact LoadOptions bytes systemd-stub hands the kernel for a {@code .cmdline} section. */
    static byte[] loadOptions(byte[] section) {
        int end = 0;
        while (end < section.length && section[end] != 0) {
            end++; // xstrn8_to_16 stops at the first NUL
        }
        String s = mangle(new String(section, 0, end, StandardCharsets.UTF_8));
        return (s + "\0").getBytes(StandardCharsets.UTF_16LE);
    }

    /** systemd's {@code mangle_stub_cmdline}: whitespace is every char <= 0x20 and 0x7F. */
    static String mangle(String in) {
        StringBuilder out = new StringBuilder(in.length());
        int lastNonWhite = 0;
        boolean leading = true;
        for (int i = 0; i < in.length(); i++) {
            char c = in.charAt(i);
            boolean white = c <= 0x20 || c == 0x7F;
            if (white && leading) {
                continue;
            }
            leading = false;
            out.append(white ? ' ' : c);
            if (!white) {
                lastNonWhite = out.length();
            }
        }
        return out.substring(0, lastNonWhite);
    }
}
