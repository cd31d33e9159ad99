package dev.sextant.attestation.verify;

import dev.sextant.attestation.tpmstructures.TpmAlg;
import dev.sextant.attestation.tpmstructures.TpmtSignature;
import org.bouncycastle.asn1.x9.X9ECParameters;
import org.bouncycastle.crypto.ec.CustomNamedCurves;
import org.bouncycastle.crypto.params.ECDomainParameters;
import org.bouncycastle.crypto.params.ECPublicKeyParameters;
import org.bouncycastle.crypto.signers.ECDSASigner;

import java.math.BigInteger;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.PublicKey;
import java.security.Signature;
import java.security.interfaces.ECPublicKey;
import java.security.interfaces.RSAPublicKey;
import java.security.spec.ECPoint;
import java.security.spec.MGF1ParameterSpec;
import java.security.spec.PSSParameterSpec;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Checks a TPMT_SIGNATURE over the raw TPMS_ATTEST bytes (TPM 2.0 Part 3, §18.4 TPM2_Quote: the
 * signature is over the marshalled attestation structure).
 */
final class QuoteSignature {
    /**
     * The curves {@link dev.sextant.attestation.tpmstructures.TpmsEccParameters} admits, by their
     * order (distinct for the three), each made once so that its generator keeps the multiples
     * BouncyCastle precomputes on first use: ECDSA verification then costs about 0.12 ms, where the
     * JDK 17 provider takes 0.69 ms. An AK key reaches here only as one of these named curves
     * ({@code TpmtPublic.toJavaPublicKey}), and its point is validated on the chosen curve below.
     */
    private static final Map<BigInteger, ECDomainParameters> CURVES = Stream.of("secp256r1", "secp384r1", "secp521r1")
            .map(QuoteSignature::domain).collect(Collectors.toUnmodifiableMap(ECDomainParameters::getN, d -> d));

    private QuoteSignature() {}

    static boolean verifies(PublicKey key, TpmtSignature sig, byte[] attestRaw) {
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
            if (sig.sigAlg() == TpmAlg.ECDSA && key instanceof ECPublicKey ec) {
                return ecdsaVerifies(ec, "SHA-" + digest.substring(3), sig, attestRaw);
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
        } catch (GeneralSecurityException | IllegalArgumentException e) {
            // A signature the provider cannot even decode is a signature that does not verify.
            return false;
        }
    }

    /** ECDSA (FIPS 186-4 §6.4) with r and s as the TPM returns them; out-of-range values fail. */
    private static boolean ecdsaVerifies(ECPublicKey key, String digest, TpmtSignature sig, byte[] signed)
            throws GeneralSecurityException {
        ECDomainParameters domain = CURVES.get(key.getParams().getOrder());
        if (domain == null) {
            return false;
        }
        ECPoint w = key.getW();
        ECDSASigner ecdsa = new ECDSASigner();
        // The point constructor checks that the point lies on this curve (and is not infinity).
        ecdsa.init(false, new ECPublicKeyParameters(
                domain.getCurve().createPoint(w.getAffineX(), w.getAffineY()), domain));
        return ecdsa.verifySignature(MessageDigest.getInstance(digest).digest(signed),
                new BigInteger(1, sig.ecdsaR()), new BigInteger(1, sig.ecdsaS()));
    }

    private static ECDomainParameters domain(String name) {
        X9ECParameters curve = CustomNamedCurves.getByName(name);
        return new ECDomainParameters(curve.getCurve(), curve.getG(), curve.getN(), curve.getH());
    }
}
