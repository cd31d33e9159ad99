package dev.sextant.attestation.verify;

import dev.sextant.attestation.ecdsa.Ecdsa;
import dev.sextant.attestation.tpmstructures.TpmAlg;
import dev.sextant.attestation.tpmstructures.TpmtSignature;
import org.bouncycastle.asn1.ASN1Integer;
import org.bouncycastle.asn1.DERSequence;

import java.io.IOException;
import java.math.BigInteger;
import java.security.GeneralSecurityException;
import java.security.PublicKey;
import java.security.Signature;
import java.security.interfaces.ECPublicKey;
import java.security.interfaces.RSAPublicKey;
import java.security.spec.MGF1ParameterSpec;
import java.security.spec.PSSParameterSpec;

/**
 * Checks a TPMT_SIGNATURE over the raw TPMS_ATTEST bytes (TPM 2.0 Part 3, §18.4 TPM2_Quote: the
 * signature is over the marshalled attestation structure).
 */
final class QuoteSignature {
    private QuoteSignature() {}

    static boolean verifies(Ecdsa ecdsa, PublicKey key, TpmtSignature sig, byte[] attestRaw) {
        String digest = switch (sig.hashAlg()) {
            // SHA-1 is not accepted: a restricted key's quote over SHA-1 could be forged by collision.
            case TpmAlg.SHA256 -> "SHA256";
            case TpmAlg.SHA384 -> "SHA384";
            case TpmAlg.SHA512 -> "SHA512";
            default -> null;
        };
        if (digest == null) {
            return false;
        }
        try {
            if (sig.sigAlg() == TpmAlg.ECDSA && key instanceof ECPublicKey) {
                // An AK key reaches here only as a named curve (TpmtPublic.toJavaPublicKey); the
                // implementation checks that its point lies on that curve.
                return ecdsa.verifies(key.getEncoded(), "SHA-" + digest.substring(3), attestRaw,
                        der(sig.ecdsaR(), sig.ecdsaS()));
            }
            Signature verifier;
            if (sig.sigAlg() == TpmAlg.RSASSA && key instanceof RSAPublicKey) {
                verifier = Signature.getInstance(digest + "withRSA");
            } else if (sig.sigAlg() == TpmAlg.RSAPSS && key instanceof RSAPublicKey) {
                verifier = Signature.getInstance("RSASSA-PSS");
                String md = "SHA-" + digest.substring(3);
                int saltLen = TpmAlg.digestSize(sig.hashAlg());
                verifier.setParameter(new PSSParameterSpec(md, "MGF1", new MGF1ParameterSpec(md), saltLen, 1));
            } else {
                return false;
            }
            verifier.initVerify(key);
            verifier.update(attestRaw);
            return verifier.verify(sig.rsaSignature());
        } catch (GeneralSecurityException | IllegalArgumentException | IOException e) {
            // A signature the provider cannot even decode is a signature that does not verify.
            return false;
        }
    }

    /**
     * r and s as the TPM returns them (unsigned big-endian), in the DER form a signature verifier
     * takes; values out of range encode all the same and then fail verification.
     */
    private static byte[] der(byte[] r, byte[] s) throws IOException {
        return new DERSequence(new ASN1Integer[] {
                new ASN1Integer(new BigInteger(1, r)), new ASN1Integer(new BigInteger(1, s))}).getEncoded();
    }
}
