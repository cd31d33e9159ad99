package dev.sextant.measuredboot.predict;

import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The systemd-stub release a UKI was built from, read from its {@code .sdmagic} section
 * ("#### LoaderInfo: systemd-stub 254.26-1~bpo12+1 ####"). The release decides which sections
 * the stub measures into PCR 11, so it is an explicit input of the prediction, never guessed.
 */
public record StubVersion(int major, String full) {
    /** The first release whose stub measures section names and data the way systemd-measure predicts. */
    public static final int OLDEST_SUPPORTED = 252;

    private static final Pattern MAGIC = Pattern.compile("#### LoaderInfo: systemd-stub ((\\d+)[^ ]*) ####");

    public static Optional<StubVersion> fromSdmagic(byte[] section) {
        String s = new String(section, StandardCharsets.ISO_8859_1);
        Matcher m = MAGIC.matcher(s);
        if (!m.find() || m.group(2).length() > 6) {
            return Optional.empty();
        }
        return Optional.of(new StubVersion(Integer.parseInt(m.group(2)), m.group(1)));
    }

    public static StubVersion of(int major) {
        return new StubVersion(major, Integer.toString(major));
    }
}
