package dev.sextant.attestation.tpmstructures;

/**
 * An algorithm with its hash detail, as in TPMT_RSA_SCHEME, TPMT_ECC_SCHEME and TPMT_KDF_SCHEME
 * (TPM 2.0 Part 2, §11.2.4.2, §11.2.5.6, §11.2.3.3). {@code hashAlg} is TPM_ALG_NULL when the scheme
 * has no hash; {@code count} is only used by ECDAA.
 */
public record TpmScheme(int alg, int hashAlg, int count) {
    public static final TpmScheme NULL = new TpmScheme(TpmAlg.NULL, TpmAlg.NULL, 0);

    static TpmScheme readRsa(TpmReader r) throws TpmFormatException {
        int alg = r.u16("parameters.scheme");
        return switch (alg) {
            case TpmAlg.NULL, TpmAlg.RSAES -> new TpmScheme(alg, TpmAlg.NULL, 0);
            case TpmAlg.RSASSA, TpmAlg.RSAPSS, TpmAlg.OAEP -> new TpmScheme(alg, r.u16("parameters.scheme.hashAlg"), 0);
            default -> throw r.fail("parameters.scheme", String.format("unsupported RSA scheme 0x%04x", alg));
        };
    }

    static TpmScheme readEcc(TpmReader r) throws TpmFormatException {
        int alg = r.u16("parameters.scheme");
        return switch (alg) {
            case TpmAlg.NULL -> NULL;
            case TpmAlg.ECDSA, TpmAlg.ECDH, TpmAlg.SM2, TpmAlg.ECSCHNORR, TpmAlg.ECMQV ->
                    new TpmScheme(alg, r.u16("parameters.scheme.hashAlg"), 0);
            case TpmAlg.ECDAA -> new TpmScheme(alg, r.u16("parameters.scheme.hashAlg"), r.u16("parameters.scheme.count"));
            default -> throw r.fail("parameters.scheme", String.format("unsupported ECC scheme 0x%04x", alg));
        };
    }

    static TpmScheme readKdf(TpmReader r) throws TpmFormatException {
        int alg = r.u16("parameters.kdf");
        return switch (alg) {
            case TpmAlg.NULL -> NULL;
            case TpmAlg.MGF1, TpmAlg.KDF1_SP800_56A, TpmAlg.KDF2, TpmAlg.KDF1_SP800_108 ->
                    new TpmScheme(alg, r.u16("parameters.kdf.hashAlg"), 0);
            default -> throw r.fail("parameters.kdf", String.format("unsupported KDF 0x%04x", alg));
        };
    }
}
