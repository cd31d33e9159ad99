package dev.sextant.measuredboot.predict;

import java.util.HexFormat;

/** One predicted extend: which PCR, the SHA-256 digest extended, and what it stands for. */
public record MeasuredEvent(int pcr, byte[] digest, String description) {

    public MeasuredEvent {
        digest = digest.clone();
    }

    @Override
    public byte[] digest() { return digest.clone(); }

    @Override
    public String toString() {
        return "PCR " + pcr + " " + HexFormat.of().formatHex(digest) + " " + description;
    }
}
