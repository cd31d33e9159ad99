package dev.sextant.tpmmanufacturer.provision;

import dev.sextant.attestation.tpmstructures.TpmAlg;
import dev.sextant.attestation.tpmstructures.TpmFormatException;
import dev.sextant.attestation.tpmstructures.TpmReader;

import java.math.BigInteger;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.MessageDigest;
import java.security.interfaces.RSAPublicKey;
import java.security.spec.RSAPublicKeySpec;

/** The AK's RSA public key and TPM name, derived from its TPMT_PUBLIC bytes. */
public final class AkPublicKeys {
    private AkPublicKeys() {}

    /**
     * The RSA key of an RSA TPMT_PUBLIC (TPM 2.0 Part 2, §12.2.4): type, nameAlg, objectAttributes,
     * authPolicy, TPMS_RSA_PARMS (§12.2.3.5), unique = modulus. Exponent 0 means 65537.
     */
    public static RSAPublicKey rsaPublicKey(byte[] tpmtPublic) throws TpmFormatException, GeneralSecurityException {
        TpmReader r = new TpmReader(tpmtPublic, "TPMT_PUBLIC");
        if (r.u16("type") != TpmAlg.RSA) {
            throw r.fail("type", "not TPM_ALG_RSA");
        }
        r.u16("nameAlg");
        r.u32("objectAttributes");
        r.sized(64, "authPolicy");
        if (r.u16("parameters.symmetric.algorithm") != TpmAlg.NULL) {
            r.u16("parameters.symmetric.keyBits");
            r.u16("parameters.symmetric.mode");
        }
        if (r.u16("parameters.scheme.scheme") != TpmAlg.NULL) {
            r.u16("parameters.scheme.details.hashAlg");
        }
        r.u16("parameters.keyBits");
        long exponent = r.u32("parameters.exponent");
        byte[] modulus = r.sized(512, "unique");
        r.expectEnd();
        BigInteger e = BigInteger.valueOf(exponent == 0 ? 65537 : exponent);
        RSAPublicKeySpec spec = new RSAPublicKeySpec(new BigInteger(1, modulus), e);
        return (RSAPublicKey) KeyFactory.getInstance("RSA").generatePublic(spec);
    }

    /** The TPM name of an object with nameAlg SHA-256: 0x000B || SHA-256(TPMT_PUBLIC) (Part 1, §16). */
    public static byte[] name(byte[] tpmtPublic) throws GeneralSecurityException {
        byte[] digest = MessageDigest.getInstance("SHA-256").digest(tpmtPublic);
        byte[] name = new byte[2 + digest.length];
        name[0] = (byte) (TpmAlg.SHA256 >>> 8);
        name[1] = (byte) TpmAlg.SHA256;
        System.arraycopy(digest, 0, name, 2, digest.length);
        return name;
    }
}
