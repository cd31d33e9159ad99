package dev.sextant.attestation.tpmstructures;

/** TPMS_ECC_PARMS (Part 2, §12.2.3.6) plus the TPMS_ECC_POINT public point. */
public record TpmsEccParameters(TpmSymDef symmetric, TpmScheme scheme, int curveId, TpmScheme kdf, byte[] x, byte[] y)
        implements TpmsKeyParameters {
    /** MAX_ECC_KEY_BYTES for P-521 (Part 2, §11.2.5.1). */
    static final int MAX_COORDINATE = 66;
    public static final int NIST_P256 = 0x0003;
    public static final int NIST_P384 = 0x0004;
    public static final int NIST_P521 = 0x0005;

    public TpmsEccParameters {
        x = x.clone();
        y = y.clone();
    }

    @Override
    public byte[] x() { return x.clone(); }

    @Override
    public byte[] y() { return y.clone(); }

    static TpmsEccParameters read(TpmReader r) throws TpmFormatException {
        TpmSymDef symmetric = TpmSymDef.read(r);
        TpmScheme scheme = TpmScheme.readEcc(r);
        int curve = r.u16("parameters.curveID");
        TpmScheme kdf = TpmScheme.readKdf(r);
        byte[] x = r.sized(MAX_COORDINATE, "unique.ecc.x");
        byte[] y = r.sized(MAX_COORDINATE, "unique.ecc.y");
        return new TpmsEccParameters(symmetric, scheme, curve, kdf, x, y);
    }

    /** JCA standard name of the curve, or null when Sextant does not support it. */
    public String jcaCurve() {
        return switch (curveId) {
            case NIST_P256 -> "secp256r1";
            case NIST_P384 -> "secp384r1";
            case NIST_P521 -> "secp521r1";
            default -> null;
        };
    }
}
