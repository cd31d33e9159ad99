package dev.sextant.measuredboot.predict;

import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The UKI sections systemd-stub knows, in its canonical order (the order of its
 * {@code unified_sections[]} table, which is also the order of measurement into PCR 11, whatever
 * the order in the file). {@code since} is the first stub release that knows the section: an
 * older stub ignores it, so it is not measured. Checked against the stubs' own string tables in
 * UkiSectionTest.
 */
public enum UkiSection {
    LINUX(".linux", 252),
    OSREL(".osrel", 252),
    CMDLINE(".cmdline", 252),
    INITRD(".initrd", 252),
    SPLASH(".splash", 252),
    DTB(".dtb", 252),
    UNAME(".uname", 253),
    SBAT(".sbat", 254),
    /** Signatures of the expected PCR 11 values: never measured, they would have to contain themselves. */
    PCRSIG(".pcrsig", 252),
    PCRPKEY(".pcrpkey", 252);

    private final String sectionName;
    private final int since;

    UkiSection(String sectionName, int since) {
        this.sectionName = sectionName;
        this.since = since;
    }

    public String sectionName() { return sectionName; }

    public int since() { return since; }

    /** Whether this stub release looks at the section at all. */
    public boolean knownTo(StubVersion stub) { return stub.major() >= since; }

    /** Whether this stub release extends PCR 11 with the section (stub.c {@code unified_section_measure}). */
    public boolean measuredBy(StubVersion stub) { return knownTo(stub) && this != PCRSIG; }

    public static Optional<UkiSection> byName(String name) {
        return Stream.of(values()).filter(s -> s.sectionName.equals(name)).findFirst();
    }

    public static List<UkiSection> knownTo(int stubMajor) {
        return Stream.of(values()).filter(s -> stubMajor >= s.since).toList();
    }
}
