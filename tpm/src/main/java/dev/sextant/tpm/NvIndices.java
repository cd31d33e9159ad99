package dev.sextant.tpm;

/** NV indices Sextant reads and writes (shared design decision "AK trust"). */
public final class NvIndices {
    /** RSA-2048 EK certificate, TCG EK Credential Profile §2.2.1.4 (swtpm_setup writes it here). */
    public static final int EK_CERT_RSA = 0x01C00002;
    /** Sextant's AK certificate (DER), written at provisioning time. */
    public static final int AK_CERT = 0x01381001;
    /**
     * The state disk this node's TPM remembers (node-boot's rememberdisk): written once, at the
     * node's first bootstrap, under a PCR policy only the genuine image before its node lock meets.
     */
    public static final int REMEMBERED_DISK = 0x01381002;
    /**
     * The second slot of that record: an upgraded node re-records its predecessor's record under its
     * own write policy here (or back at {@link #REMEMBERED_DISK}, whichever the accepted one is not in)
     * and keeps the predecessor's, so a node rolled back to its old image still unlocks; the next
     * upgrade overwrites the older of the two.
     */
    public static final int REMEMBERED_DISK_NEXT = 0x01381003;

    private NvIndices() {}
}
