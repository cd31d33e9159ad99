package dev.sextant.attestation.tpmstructures;

/**
 * TPMT_SIGNATURE (TPM 2.0 Part 2, §11.3.4) for RSASSA, RSAPSS and ECDSA. For RSA schemes
 * {@code rsaSignature} is set and r/s are empty; for ECDSA the reverse.
 */
public record TpmtSignature(byte[] raw, int sigAlg, int hashAlg, byte[] rsaSignature, byte[] ecdsaR, byte[] ecdsaS) {
    public TpmtSignature {
        raw = raw.clone();
        rsaSignature = rsaSignature.clone();
        ecdsaR = ecdsaR.clone();
        ecdsaS = ecdsaS.clone();
    }

    @Override
    public byte[] raw() { return raw.clone(); }

    @Override
    public byte[] rsaSignature() { return rsaSignature.clone(); }

    @Override
    public byte[] ecdsaR() { return ecdsaR.clone(); }

    @Override
    public byte[] ecdsaS() { return ecdsaS.clone(); }

    public static TpmtSignature parse(byte[] bytes) throws TpmFormatException {
        TpmReader r = new TpmReader(bytes, "TPMT_SIGNATURE");
        int sigAlg = r.u16("sigAlg");
        TpmtSignature s = switch (sigAlg) {
            case TpmAlg.RSASSA, TpmAlg.RSAPSS -> {
                int hash = r.u16("signature.hash");
                byte[] sig = r.sized(TpmsRsaParameters.MAX_MODULUS, "signature.sig");
                yield new TpmtSignature(bytes, sigAlg, hash, sig, new byte[0], new byte[0]);
            }
            case TpmAlg.ECDSA -> {
                int hash = r.u16("signature.hash");
                byte[] sr = r.sized(TpmsEccParameters.MAX_COORDINATE, "signature.signatureR");
                byte[] ss = r.sized(TpmsEccParameters.MAX_COORDINATE, "signature.signatureS");
                yield new TpmtSignature(bytes, sigAlg, hash, new byte[0], sr, ss);
            }
            default -> throw r.fail("sigAlg", String.format("unsupported signature scheme 0x%04x", sigAlg));
        };
        r.expectEnd();
        return s;
    }
}
