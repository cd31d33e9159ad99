package dev.sextant.attestation.tpmstructures;

import java.math.BigInteger;
import java.security.AlgorithmParameters;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.PublicKey;
import java.security.spec.ECGenParameterSpec;
import java.security.spec.ECParameterSpec;
import java.security.spec.ECPoint;
import java.security.spec.ECPublicKeySpec;
import java.security.spec.RSAPublicKeySpec;

/**
 * TPMT_PUBLIC (TPM 2.0 Part 2, §12.2.4) for RSA and ECC keys. {@link #raw()} is exactly the parsed
 * byte string, so {@link #name()} hashes what the TPM hashed.
 */
public record TpmtPublic(byte[] raw, int type, int nameAlg, long objectAttributes, byte[] authPolicy,
                         TpmsKeyParameters parameters) {
    /** TPMA_OBJECT bits (Part 2, §8.3.2). */
    public static final long FIXED_TPM = 1L << 1;
    public static final long FIXED_PARENT = 1L << 4;
    public static final long SENSITIVE_DATA_ORIGIN = 1L << 5;
    public static final long USER_WITH_AUTH = 1L << 6;
    public static final long RESTRICTED = 1L << 16;
    public static final long DECRYPT = 1L << 17;
    public static final long SIGN = 1L << 18;

    public TpmtPublic {
        raw = raw.clone();
        authPolicy = authPolicy.clone();
    }

    @Override
    public byte[] raw() { return raw.clone(); }

    @Override
    public byte[] authPolicy() { return authPolicy.clone(); }

    public static TpmtPublic parse(byte[] bytes) throws TpmFormatException {
        TpmReader r = new TpmReader(bytes, "TPMT_PUBLIC");
        int type = r.u16("type");
        int nameAlg = r.u16("nameAlg");
        // The name is nameAlg || H(TPMT_PUBLIC); an unknown or NULL nameAlg gives no usable name.
        if (TpmAlg.digestSize(nameAlg) < 0) {
            throw r.fail("nameAlg", String.format("unsupported hash 0x%04x", nameAlg));
        }
        long attributes = r.u32("objectAttributes");
        byte[] policy = r.sized(TpmsAttest.MAX_DIGEST, "authPolicy");
        TpmsKeyParameters parameters = switch (type) {
            case TpmAlg.RSA -> TpmsRsaParameters.read(r);
            case TpmAlg.ECC -> TpmsEccParameters.read(r);
            default -> throw r.fail("type", String.format("unsupported key type 0x%04x", type));
        };
        r.expectEnd();
        return new TpmtPublic(bytes, type, nameAlg, attributes, policy, parameters);
    }

    public boolean has(long attributeBits) {
        return (objectAttributes & attributeBits) == attributeBits;
    }

    /** TPM name (Part 1, §16): nameAlg as two bytes, then nameAlg's digest of the raw TPMT_PUBLIC. */
    public byte[] name() {
        try {
            byte[] digest = MessageDigest.getInstance(TpmAlg.jcaDigest(nameAlg)).digest(raw);
            return new TpmWriter().u16(nameAlg).bytes(digest).toByteArray();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("parse() admits only hashes every Java platform has", e);
        }
    }

    /** The key as a JCA key; fails when the numbers do not form a key of a supported kind. */
    public PublicKey toJavaPublicKey() throws TpmFormatException {
        try {
            if (parameters instanceof TpmsRsaParameters rsa) {
                if (rsa.modulus().length * 8 != rsa.keyBits()) {
                    throw new TpmFormatException("TPMT_PUBLIC", "unique.rsa", 0,
                            rsa.modulus().length + "-byte modulus for a " + rsa.keyBits() + "-bit key");
                }
                return KeyFactory.getInstance("RSA").generatePublic(new RSAPublicKeySpec(
                        new BigInteger(1, rsa.modulus()), BigInteger.valueOf(rsa.effectiveExponent())));
            }
            TpmsEccParameters ecc = (TpmsEccParameters) parameters;
            if (ecc.jcaCurve() == null) {
                throw new TpmFormatException("TPMT_PUBLIC", "parameters.curveID", 0,
                        String.format("unsupported curve 0x%04x", ecc.curveId()));
            }
            AlgorithmParameters params = AlgorithmParameters.getInstance("EC");
            params.init(new ECGenParameterSpec(ecc.jcaCurve()));
            ECParameterSpec curve = params.getParameterSpec(ECParameterSpec.class);
            ECPoint point = new ECPoint(new BigInteger(1, ecc.x()), new BigInteger(1, ecc.y()));
            // The JDK neither checks that the point lies on the curve nor, for oversized
            // coordinates, fails with a checked exception (found by TpmStructuresFuzzTest).
            if (!onCurve(point, curve)) {
                throw new TpmFormatException("TPMT_PUBLIC", "unique.ecc", 0, "the point is not on " + ecc.jcaCurve());
            }
            return KeyFactory.getInstance("EC").generatePublic(new ECPublicKeySpec(point, curve));
        } catch (GeneralSecurityException | IllegalArgumentException e) {
            throw new TpmFormatException("TPMT_PUBLIC", "unique", 0, "not a valid public key: " + e.getMessage());
        }
    }

    /** y^2 = x^3 + ax + b (mod p) with both coordinates reduced, for the prime curves TPMs use. */
    private static boolean onCurve(ECPoint point, ECParameterSpec spec) {
        if (!(spec.getCurve().getField() instanceof java.security.spec.ECFieldFp field)) {
            return false;
        }
        BigInteger p = field.getP();
        BigInteger x = point.getAffineX();
        BigInteger y = point.getAffineY();
        if (x.compareTo(p) >= 0 || y.compareTo(p) >= 0) {
            return false;
        }
        BigInteger rhs = x.pow(3).add(spec.getCurve().getA().multiply(x)).add(spec.getCurve().getB()).mod(p);
        return y.modPow(BigInteger.TWO, p).equals(rhs);
    }
}
