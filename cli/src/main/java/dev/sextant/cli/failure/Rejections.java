package dev.sextant.cli.failure;

import dev.sextant.attestation.verify.AttestationRejected;

/** The one line a verifying command prints for a rejection: {@code REJECTED: <REASON>: <sentence>}. */
public final class Rejections {
    private Rejections() {}

    public static String line(AttestationRejected rejected) {
        return "REJECTED: " + Printable.of(String.join("; ", rejected.toString().lines().toList()));
    }
}
