package dev.sextant.nodeboot.joinclient;

import java.io.PrintStream;

/**
 * The console's word that a verified join service refused this machine as revoked, for the operator,
 * {@code sextant mini} and the boot tests, beside the other status lines ({@code bringup.BootstrapStatus},
 * {@code failure.FailureHandler}): {@code SEXTANT-STATUS revoked reason=<code>}, the revocation's reason
 * code ({@code OPERATOR}, {@code PCR_MISMATCH}, {@code IMAGE_RETIRED}, {@code UNREACHABLE}, ...).
 */
public final class RevokedStatus {
    private final PrintStream out;

    public RevokedStatus() {
        this(System.out);
    }

    public RevokedStatus(PrintStream out) {
        this.out = out;
    }

    /** @param reason a code (checked as one where it was read off the wire, {@code WireRefusal}) */
    public void print(String reason) {
        out.println("SEXTANT-STATUS revoked reason=" + reason);
        out.flush();
    }
}
