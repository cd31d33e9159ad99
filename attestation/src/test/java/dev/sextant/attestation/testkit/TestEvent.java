package dev.sextant.attestation.testkit;

/** An event to measure into the software TPM: its SHA-256 digest is the hash of {@code data}. */
public record TestEvent(int pcr, long type, byte[] data) {
    /** EV_IPL (PFP §10.4.1), used for arbitrary measured data. */
    public static final long EV_IPL = 0x0000000DL;

    public TestEvent {
        data = data.clone();
    }

    @Override
    public byte[] data() { return data.clone(); }
}
