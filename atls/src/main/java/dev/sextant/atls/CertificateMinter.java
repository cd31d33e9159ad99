package dev.sextant.atls;

import dev.sextant.attestation.Variant;
import dev.sextant.attestation.ecdsa.BouncyCastleEcdsa;
import dev.sextant.attestation.ecdsa.Ecdsa;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.AlgorithmIdentifier;
import org.bouncycastle.asn1.x509.SubjectPublicKeyInfo;
import org.bouncycastle.asn1.x509.Time;
import org.bouncycastle.asn1.x9.X9ObjectIdentifiers;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.operator.ContentSigner;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.math.BigInteger;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Mints the fresh P-256 key and self-signed certificate of one handshake: the key and the
 * signature come from an {@link Ecdsa} (BouncyCastle's classes called directly on nodes and in the
 * command line, where a JCA provider's construction would cost start-up; the native one in the join
 * service), the certificate from BouncyCastle's builder.
 */
final class CertificateMinter {
    /** Generous, because freshness comes from the nonce; validity only guards against clock-less reuse. */
    private static final Duration VALIDITY = Duration.ofHours(1);
    private static final X500Name SUBJECT = new X500Name("CN=sextant-atls");
    private static final AlgorithmIdentifier SHA256_WITH_ECDSA = new AlgorithmIdentifier(X9ObjectIdentifiers.ecdsa_with_SHA256);
    /** Parses the signed certificate with the JDK's X.509 factory (no provider of ours to build). */
    private static final JcaX509CertificateConverter CONVERTER = new JcaX509CertificateConverter();

    private final Ecdsa ecdsa;
    private final SecureRandom random;
    private final Clock clock;
    /** BouncyCastle formats a Time through SimpleDateFormat: made once a minute, not per handshake. */
    private final AtomicReference<Validity> validity = new AtomicReference<>(new Validity(Long.MIN_VALUE, null, null));

    /** notBefore/notAfter for certificates minted during one minute (epoch minute {@code minute}). */
    private record Validity(long minute, Time notBefore, Time notAfter) {}

    CertificateMinter(Ecdsa ecdsa, SecureRandom random, Clock clock) {
        this.ecdsa = ecdsa;
        this.random = random;
        this.clock = clock;
    }

    static CertificateMinter createDefault() {
        return create(new BouncyCastleEcdsa(new SecureRandom()));
    }

    static CertificateMinter create(Ecdsa ecdsa) {
        return new CertificateMinter(ecdsa, new SecureRandom(), Clock.systemUTC());
    }

    /** A fresh P-256 key pair; the caller attests SHA-256 of its SPKI before {@link #certify}. */
    KeyPair newKeyPair() throws GeneralSecurityException {
        return ecdsa.newP256KeyPair();
    }

    /** Self-signs {@code keys}; {@code document} (may be null) becomes the variant's extension. */
    MintedCredential certify(KeyPair keys, Variant variant, byte[] document) throws GeneralSecurityException {
        return certify(keys, variant, document, null);
    }

    /** As {@link #certify(KeyPair, Variant, byte[])}; {@code proof} (may be null) becomes the {@link HandshakeProof} extension. */
    MintedCredential certify(KeyPair keys, Variant variant, byte[] document, byte[] proof) throws GeneralSecurityException {
        Validity window = validityNow();
        X509v3CertificateBuilder builder = new X509v3CertificateBuilder(SUBJECT,
                new BigInteger(127, random).add(BigInteger.ONE), window.notBefore(), window.notAfter(), SUBJECT,
                SubjectPublicKeyInfo.getInstance(keys.getPublic().getEncoded()));
        try {
            if (document != null) {
                builder.addExtension(variant.oid(), false, document);
            }
            if (proof != null) {
                builder.addExtension(HandshakeProof.OID, false, proof);
            }
            Signer signer = new Signer(keys.getPrivate());
            X509CertificateHolder holder = builder.build(signer);
            if (signer.failure != null) {
                throw signer.failure;
            }
            return new MintedCredential(keys.getPrivate(), CONVERTER.getCertificate(holder));
        } catch (java.io.IOException e) {
            throw new GeneralSecurityException("cannot build the aTLS certificate", e);
        }
    }

    /**
     * The certificate builder's signer: collects the TBS bytes, signs them with SHA-256 and ECDSA.
     * {@code ContentSigner.getSignature} may not throw a checked exception, so a failure is kept for
     * {@link #certify} to throw.
     */
    private final class Signer implements ContentSigner {
        private final PrivateKey key;
        private final ByteArrayOutputStream tbs = new ByteArrayOutputStream(4096);
        private GeneralSecurityException failure;

        Signer(PrivateKey key) {
            this.key = key;
        }

        @Override
        public AlgorithmIdentifier getAlgorithmIdentifier() {
            return SHA256_WITH_ECDSA;
        }

        @Override
        public OutputStream getOutputStream() {
            return tbs;
        }

        @Override
        public byte[] getSignature() {
            try {
                return ecdsa.signSha256(key, tbs.toByteArray());
            } catch (GeneralSecurityException e) {
                failure = e;
                return new byte[0];
            }
        }
    }

    /** The window around the current minute: at most a minute less than {@link #VALIDITY} ahead. */
    private Validity validityNow() {
        long minute = clock.instant().getEpochSecond() / 60;
        Validity current = validity.get();
        if (current.minute() != minute) {
            Instant start = Instant.ofEpochSecond(minute * 60);
            current = new Validity(minute, new Time(Date.from(start.minus(VALIDITY))),
                    new Time(Date.from(start.plus(VALIDITY))));
            validity.set(current);
        }
        return current;
    }
}
