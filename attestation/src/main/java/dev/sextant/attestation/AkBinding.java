package dev.sextant.attestation;

import dev.sextant.attestation.tpmstructures.TpmFormatException;
import org.bouncycastle.asn1.ASN1Encodable;
import org.bouncycastle.asn1.ASN1Encoding;
import org.bouncycastle.asn1.ASN1ObjectIdentifier;
import org.bouncycastle.asn1.ASN1OctetString;
import org.bouncycastle.asn1.ASN1Primitive;
import org.bouncycastle.asn1.ASN1Sequence;
import org.bouncycastle.asn1.DEROctetString;
import org.bouncycastle.asn1.DERSequence;

import java.io.IOException;

/**
 * The "AK binding" extension of an AK certificate (shared design decision): DER of
 * SEQUENCE { OCTET STRING akName, OCTET STRING sha256(EK certificate SubjectPublicKeyInfo) }.
 * It ties the AK to the EK that was present when the CA certified it.
 */
public record AkBinding(byte[] akName, byte[] ekSpkiSha256) {
    /** 2.25.&lt;UUID 9f5e6978-6291-4373-9eb9-7aa22c576967 as an integer&gt; (ITU-T X.667). */
    public static final ASN1ObjectIdentifier OID =
            new ASN1ObjectIdentifier("2.25.211837466425396926463605381200000543079");
    private static final int MAX_FIELD = 128;

    public AkBinding {
        akName = akName.clone();
        ekSpkiSha256 = ekSpkiSha256.clone();
    }

    @Override
    public byte[] akName() { return akName.clone(); }

    @Override
    public byte[] ekSpkiSha256() { return ekSpkiSha256.clone(); }

    /** The extension value (the DER SEQUENCE, before X.509 wraps it in an OCTET STRING). */
    public byte[] encode() {
        try {
            return new DERSequence(new ASN1Encodable[]{new DEROctetString(akName), new DEROctetString(ekSpkiSha256)})
                    .getEncoded(ASN1Encoding.DER);
        } catch (IOException e) {
            throw new IllegalStateException("DER encoding to memory cannot fail", e);
        }
    }

    /** Parses the extension value as returned inside the X.509 extension's OCTET STRING. */
    public static AkBinding decode(byte[] der) throws TpmFormatException {
        try {
            ASN1Primitive p = ASN1Primitive.fromByteArray(der);
            if (p instanceof ASN1Sequence seq && seq.size() == 2
                    && seq.getObjectAt(0) instanceof ASN1OctetString name
                    && seq.getObjectAt(1) instanceof ASN1OctetString hash
                    && name.getOctets().length <= MAX_FIELD && hash.getOctets().length <= MAX_FIELD) {
                return new AkBinding(name.getOctets(), hash.getOctets());
            }
        } catch (IOException | RuntimeException e) {
            // BouncyCastle reports some malformed DER as IllegalArgumentException or IllegalStateException.
            throw new TpmFormatException("AkBinding", "der", 0, "not DER: " + e.getMessage());
        }
        throw new TpmFormatException("AkBinding", "der", 0, "not SEQUENCE { OCTET STRING, OCTET STRING }");
    }
}
