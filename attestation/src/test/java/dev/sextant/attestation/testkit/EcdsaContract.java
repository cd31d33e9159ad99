package dev.sextant.attestation.testkit;

import dev.sextant.attestation.ecdsa.BouncyCastleEcdsa;
import dev.sextant.attestation.ecdsa.Ecdsa;
import dev.sextant.attestation.tpmstructures.TpmsAttest;
import dev.sextant.attestation.tpmstructures.TpmtPublic;
import dev.sextant.attestation.tpmstructures.TpmtSignature;
import org.bouncycastle.asn1.ASN1Integer;
import org.bouncycastle.asn1.DERSequence;
import org.bouncycastle.asn1.sec.SECObjectIdentifiers;
import org.bouncycastle.asn1.x509.AlgorithmIdentifier;
import org.bouncycastle.asn1.x509.SubjectPublicKeyInfo;
import org.bouncycastle.asn1.x9.X9ObjectIdentifiers;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.spec.ECGenParameterSpec;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What every {@link Ecdsa} must do, run against each implementation (a subclass names it): its
 * verdicts on real signatures from independent signers (a real swtpm's quote, the JDK's provider),
 * on broken ones, and on keys it must refuse. aTLS and the quote verifier rely on nothing else.
 */
public abstract class EcdsaContract {
    private static final byte[] DATA = "the TBS bytes of a certificate".getBytes(StandardCharsets.UTF_8);
    private static final BigInteger P256_ORDER = new BigInteger(
            "FFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551", 16);

    /** The implementation under test. */
    protected abstract Ecdsa ecdsa();

    @Test
    @DisplayName("verifies its own P-256 signature and the reference implementation's, not over other data")
    void signsAndVerifies() throws Exception {
        Ecdsa reference = new BouncyCastleEcdsa(new SecureRandom());
        KeyPair keys = ecdsa().newP256KeyPair();
        byte[] spki = keys.getPublic().getEncoded();
        byte[] own = ecdsa().signSha256(keys.getPrivate(), DATA);

        assertEquals(SECObjectIdentifiers.secp256r1, SubjectPublicKeyInfo.getInstance(spki).getAlgorithm().getParameters());
        assertTrue(ecdsa().verifies(spki, "SHA-256", DATA, own));
        assertTrue(reference.verifies(spki, "SHA-256", DATA, own), "the reference accepts this implementation's signature");
        KeyPair other = reference.newP256KeyPair();
        assertTrue(ecdsa().verifies(other.getPublic().getEncoded(), "SHA-256", DATA,
                reference.signSha256(other.getPrivate(), DATA)));
        assertFalse(ecdsa().verifies(spki, "SHA-256", changed(DATA), own));
        assertFalse(ecdsa().verifies(spki, "SHA-384", DATA, own));
        assertFalse(ecdsa().verifies(other.getPublic().getEncoded(), "SHA-256", DATA, own));
    }

    @ParameterizedTest(name = "verifies the JDK provider''s {0} signatures with {1}")
    @CsvSource({"secp256r1, SHA-256", "secp256r1, SHA-384", "secp384r1, SHA-384", "secp521r1, SHA-512"})
    void verifiesAnIndependentSigner(String curve, String digest) throws Exception {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("EC", "SunEC");
        generator.initialize(new ECGenParameterSpec(curve));
        KeyPair keys = generator.generateKeyPair();
        Signature jdk = Signature.getInstance(digest.replace("-", "") + "withECDSA", "SunEC");
        jdk.initSign(keys.getPrivate());
        jdk.update(DATA);
        byte[] signature = jdk.sign();

        assertTrue(ecdsa().verifies(keys.getPublic().getEncoded(), digest, DATA, signature));
        assertFalse(ecdsa().verifies(keys.getPublic().getEncoded(), digest, changed(DATA), signature));
    }

    @Test
    @DisplayName("verifies a real swtpm's ECDSA quote signature over TPMS_ATTEST, and not with one bit changed")
    void verifiesASwtpmQuote() throws Exception {
        SwtpmQuote quote = SwtpmQuote.load();

        assertTrue(ecdsa().verifies(quote.ak(), "SHA-256", quote.attest(), der(quote.r(), quote.s())));
        assertFalse(ecdsa().verifies(quote.ak(), "SHA-256", changed(quote.attest()), der(quote.r(), quote.s())));
    }

    @Test
    @DisplayName("does not verify the swtpm quote with r = 0, s = n, r and s swapped, s + n, a truncated, a padded or a non-DER signature")
    void brokenSignaturesDoNotVerify() throws Exception {
        SwtpmQuote quote = SwtpmQuote.load();
        BigInteger r = quote.r();
        BigInteger s = quote.s();
        byte[] valid = der(r, s);
        byte[][] broken = {
                der(BigInteger.ZERO, s), der(r, P256_ORDER), der(s, r), der(r, s.add(P256_ORDER)),
                Arrays.copyOf(valid, valid.length - 1), concat(valid, new byte[] {0}), r.toByteArray(), new byte[0]};
        for (byte[] signature : broken) {
            assertFalse(ecdsa().verifies(quote.ak(), "SHA-256", quote.attest(), signature),
                    () -> "verified " + Arrays.toString(signature));
        }
    }

    @Test
    @DisplayName("refuses, as an invalid key, a point off the curve, an RSA key, a curve other than P-256/384/521, an unknown digest")
    void refusesKeys() throws Exception {
        byte[] ak = SwtpmQuote.load().ak();
        byte[] signature = der(BigInteger.ONE, BigInteger.ONE);
        SubjectPublicKeyInfo info = SubjectPublicKeyInfo.getInstance(ak);
        byte[] point = info.getPublicKeyData().getOctets();
        point[point.length - 1] ^= 1;
        byte[] offCurve = new SubjectPublicKeyInfo(info.getAlgorithm(), point).getEncoded();
        byte[] otherCurve = new SubjectPublicKeyInfo(new AlgorithmIdentifier(X9ObjectIdentifiers.id_ecPublicKey,
                SECObjectIdentifiers.secp256k1), info.getPublicKeyData().getOctets()).getEncoded();
        KeyPairGenerator rsa = KeyPairGenerator.getInstance("RSA");
        rsa.initialize(2048);

        for (byte[] key : new byte[][] {offCurve, otherCurve, rsa.generateKeyPair().getPublic().getEncoded(), {0x30, 0}}) {
            assertThrows(InvalidKeyException.class, () -> ecdsa().verifies(key, "SHA-256", DATA, signature));
        }
        assertThrows(InvalidKeyException.class, () -> ecdsa().verifies(ak, "SHA-1", DATA, signature));
    }

    /** A real swtpm's ECDSA AK (SubjectPublicKeyInfo), a TPMS_ATTEST it quoted, and its signature's r and s. */
    private record SwtpmQuote(byte[] ak, byte[] attest, BigInteger r, BigInteger s) {
        static SwtpmQuote load() throws Exception {
            TpmtSignature sig = TpmtSignature.parse(Fixtures.swtpm("quote-ecc.tpmt_signature"));
            return new SwtpmQuote(TpmtPublic.parse(Fixtures.swtpm("ak-ecc.tpmt_public")).toJavaPublicKey().getEncoded(),
                    TpmsAttest.parse(Fixtures.swtpm("quote-ecc.tpms_attest")).raw(),
                    new BigInteger(1, sig.ecdsaR()), new BigInteger(1, sig.ecdsaS()));
        }
    }

    private static byte[] der(BigInteger r, BigInteger s) throws Exception {
        return new DERSequence(new ASN1Integer[] {new ASN1Integer(r), new ASN1Integer(s)}).getEncoded();
    }

    private static byte[] changed(byte[] data) {
        byte[] copy = data.clone();
        copy[copy.length - 1] ^= 1;
        return copy;
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] both = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, both, a.length, b.length);
        return both;
    }
}
