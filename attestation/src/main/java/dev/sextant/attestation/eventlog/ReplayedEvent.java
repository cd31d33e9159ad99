package dev.sextant.attestation.eventlog;

/**
 * An event whose SHA-256 digest is part of a replay that matched the quoted PCR. The digest and PCR
 * are verified; the type and data are not (a tampered type still replays), hence {@code untrustedType}
 * and the advice to check that data hashes to the digest before interpreting it.
 */
public record ReplayedEvent(int sequence, int pcrIndex, long untrustedType, byte[] sha256, byte[] untrustedData) {
    public ReplayedEvent {
        sha256 = sha256.clone();
        untrustedData = untrustedData.clone();
    }

    @Override
    public byte[] sha256() { return sha256.clone(); }

    @Override
    public byte[] untrustedData() { return untrustedData.clone(); }
}
