package dev.sextant.atls;

import dev.sextant.attestation.Variant;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.SubjectPublicKeyInfo;
import org.bouncycastle.asn1.x509.Time;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.jce.provider.BouncyCastleProvider;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

import java.math.BigInteger;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.Provider;
import java.security.SecureRandom;
import java.security.spec.ECGenParameterSpec;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Mints the fresh P-256 key and self-signed certificate of one handshake. Uses a private
 * BouncyCastle provider instance (not registered globally): BC key generation and signing are
 * about 5x faster than SunEC on JDK 17 (atls-probe.md §5).
 */
final class CertificateMinter {
    /** Generous, because freshness comes from the nonce; validity only guards against clock-less reuse. */
    private static final Duration VALIDITY = Duration.ofHours(1);
    private static final X500Name SUBJECT = new X500Name("CN=sextant-atls");

    private final Provider bc;
    private final SecureRandom random;
    private final Clock clock;
    /** BouncyCastle formats a Time through SimpleDateFormat: made once a minute, not per handshake. */
    private final AtomicReference<Validity> validity = new AtomicReference<>(new Validity(Long.MIN_VALUE, null, null));

    /** notBefore/notAfter for certificates minted during one minute (epoch minute {@code minute}). */
    private record Validity(long minute, Time notBefore, Time notAfter) {}

    CertificateMinter(Provider bc, SecureRandom random, Clock clock) {
        this.bc = bc;
        this.random = random;
        this.clock = clock;
    }

    static CertificateMinter createDefault() {
        return new CertificateMinter(new BouncyCastleProvider(), new SecureRandom(), Clock.systemUTC());
    }

    /** A fresh P-256 key pair; the caller attests SHA-256 of its SPKI before {@link #certify}. */
    KeyPair newKeyPair() throws GeneralSecurityException {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("EC", bc); // not thread-safe: one per call
        generator.initialize(new ECGenParameterSpec("secp256r1"), random);
        return generator.generateKeyPair();
    }

    /** Self-signs {@code keys}; {@code document} (may be null) becomes the variant's extension. */
    MintedCredential certify(KeyPair keys, Variant variant, byte[] document) throws GeneralSecurityException {
        Validity window = validityNow();
        X509v3CertificateBuilder builder = new X509v3CertificateBuilder(SUBJECT,
                new BigInteger(127, random).add(BigInteger.ONE), window.notBefore(), window.notAfter(), SUBJECT,
                SubjectPublicKeyInfo.getInstance(keys.getPublic().getEncoded()));
        try {
            if (document != null) {
                builder.addExtension(variant.oid(), false, document);
            }
            X509CertificateHolder holder = builder.build(
                    new JcaContentSignerBuilder("SHA256withECDSA").setProvider(bc).build(keys.getPrivate()));
            return new MintedCredential(keys.getPrivate(),
                    new JcaX509CertificateConverter().setProvider(bc).getCertificate(holder));
        } catch (OperatorCreationException | java.io.IOException e) {
            throw new GeneralSecurityException("cannot build the aTLS certificate", e);
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

    Provider provider() { return bc; }
}
