package dev.sextant.attestation;

import org.bouncycastle.asn1.ASN1ObjectIdentifier;

import java.util.Arrays;
import java.util.Optional;

/**
 * Attestation variants. Each has the X.509 extension OID under which its document travels in an
 * aTLS certificate: 2.25.&lt;UUID as a decimal integer&gt; (ITU-T X.667; here UUID a1826e2e-9c43-4b8e-8f1a-0b6f4c2d7e4d), so no arc has to be
 * registered (design decision 4).
 */
public enum Variant {
    /** A TPM 2.0 (swtpm under QEMU, or a real device) quoting the SHA-256 PCR bank. */
    QEMU_VTPM("qemu-vtpm", "2.25.214682940670893876838407516163981278797");

    private final String id;
    private final ASN1ObjectIdentifier oid;

    Variant(String id, String oid) {
        this.id = id;
        this.oid = new ASN1ObjectIdentifier(oid);
    }

    public String id() { return id; }

    public ASN1ObjectIdentifier oid() { return oid; }

    public static Optional<Variant> byId(String id) {
        return Arrays.stream(values()).filter(v -> v.id.equals(id)).findFirst();
    }

    @Override
    public String toString() { return id; }
}
