package dev.sextant.attestation.tpmstructures;

/** TPM_ALG_ID values used by Sextant (TPM 2.0 Part 2, §6.3). */
public final class TpmAlg {
    public static final int RSA = 0x0001;
    public static final int SHA1 = 0x0004;
    public static final int HMAC = 0x0005;
    public static final int AES = 0x0006;
    public static final int KEYEDHASH = 0x0008;
    public static final int SHA256 = 0x000B;
    public static final int SHA384 = 0x000C;
    public static final int SHA512 = 0x000D;
    public static final int NULL = 0x0010;
    public static final int MGF1 = 0x0007;
    public static final int RSASSA = 0x0014;
    public static final int RSAES = 0x0015;
    public static final int OAEP = 0x0017;
    public static final int RSAPSS = 0x0016;
    public static final int ECDSA = 0x0018;
    public static final int ECDH = 0x0019;
    public static final int ECDAA = 0x001A;
    public static final int SM2 = 0x001B;
    public static final int ECSCHNORR = 0x001C;
    public static final int ECMQV = 0x001D;
    public static final int KDF1_SP800_56A = 0x0020;
    public static final int KDF2 = 0x0021;
    public static final int KDF1_SP800_108 = 0x0022;
    public static final int ECC = 0x0023;
    public static final int SYMCIPHER = 0x0025;
    public static final int CFB = 0x0043;

    private TpmAlg() {}

    /** Digest size of a hash algorithm, or -1 when Sextant does not know it. */
    public static int digestSize(int alg) {
        return switch (alg) {
            case SHA1 -> 20;
            case SHA256 -> 32;
            case SHA384 -> 48;
            case SHA512 -> 64;
            default -> -1;
        };
    }

    /** JCA name of a hash algorithm, or null. */
    public static String jcaDigest(int alg) {
        return switch (alg) {
            case SHA1 -> "SHA-1";
            case SHA256 -> "SHA-256";
            case SHA384 -> "SHA-384";
            case SHA512 -> "SHA-512";
            default -> null;
        };
    }
}
