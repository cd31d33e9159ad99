package dev.sextant.atls;

import dev.sextant.attestation.Variant;
import org.bouncycastle.asn1.nist.NISTObjectIdentifiers;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.AlgorithmIdentifier;
import org.bouncycastle.asn1.x509.SubjectPublicKeyInfo;
import org.bouncycastle.asn1.x509.Time;
import org.bouncycastle.asn1.x9.X9ObjectIdentifiers;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.crypto.params.ECDomainParameters;
import org.bouncycastle.crypto.params.ECPrivateKeyParameters;
import org.bouncycastle.jcajce.provider.asymmetric.ec.KeyPairGeneratorSpi;
import org.bouncycastle.jce.ECNamedCurveTable;
import org.bouncycastle.jce.spec.ECNamedCurveParameterSpec;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.bc.BcECContentSignerBuilder;

import java.math.BigInteger;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.SecureRandom;
import java.security.interfaces.ECPrivateKey;
import java.security.spec.ECGenParameterSpec;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Mints the fresh P-256 key and self-signed certificate of one handshake with BouncyCastle's
 * classes, called directly: BC key generation and signing are about 5x faster than SunEC on JDK 17
 * (atls-probe.md §5), and going through a {@code BouncyCastleProvider} would cost every JVM that
 * speaks aTLS the provider's construction at start-up, which registers thousands of algorithms
 * for the two used here (0.09 s on the host, 0.75 s under TCG emulation; issue 16, goal 3).
 */
final class CertificateMinter {
    /** Generous, because freshness comes from the nonce; validity only guards against clock-less reuse. */
    private static final Duration VALIDITY = Duration.ofHours(1);
    private static final X500Name SUBJECT = new X500Name("CN=sextant-atls");

    private static final AlgorithmIdentifier SHA256_WITH_ECDSA = new AlgorithmIdentifier(X9ObjectIdentifiers.ecdsa_with_SHA256);
    private static final AlgorithmIdentifier SHA256 = new AlgorithmIdentifier(NISTObjectIdentifiers.id_sha256);
    /**
     * One P-256 for every signature: its generator point keeps the precomputed multiples signing
     * needs. Domain parameters made per signature (as {@code ECUtil} does from a JCA key) would
     * precompute them again each time, 0.13 ms, twice the signature itself.
     */
    private static final ECDomainParameters P256 = p256();
    /** Parses the signed certificate with the JDK's X.509 factory (no provider of ours to build). */
    private static final JcaX509CertificateConverter CONVERTER = new JcaX509CertificateConverter();

    private final SecureRandom random;
    private final Clock clock;
    /** BouncyCastle formats a Time through SimpleDateFormat: made once a minute, not per handshake. */
    private final AtomicReference<Validity> validity = new AtomicReference<>(new Validity(Long.MIN_VALUE, null, null));

    /** notBefore/notAfter for certificates minted during one minute (epoch minute {@code minute}). */
    private record Validity(long minute, Time notBefore, Time notAfter) {}

    CertificateMinter(SecureRandom random, Clock clock) {
        this.random = random;
        this.clock = clock;
    }

    static CertificateMinter createDefault() {
        return new CertificateMinter(new SecureRandom(), Clock.systemUTC());
    }

    /** A fresh P-256 key pair; the caller attests SHA-256 of its SPKI before {@link #certify}. */
    KeyPair newKeyPair() throws GeneralSecurityException {
        KeyPairGenerator generator = new KeyPairGeneratorSpi.EC(); // not thread-safe: one per call
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
            X509CertificateHolder holder = builder.build(new BcECContentSignerBuilder(SHA256_WITH_ECDSA, SHA256)
                    .setSecureRandom(random).build(new ECPrivateKeyParameters(((ECPrivateKey) keys.getPrivate()).getS(), P256)));
            return new MintedCredential(keys.getPrivate(), CONVERTER.getCertificate(holder));
        } catch (OperatorCreationException | java.io.IOException e) {
            throw new GeneralSecurityException("cannot build the aTLS certificate", e);
        }
    }

    private static ECDomainParameters p256() {
        ECNamedCurveParameterSpec spec = ECNamedCurveTable.getParameterSpec("secp256r1");
        return new ECDomainParameters(spec.getCurve(), spec.getG(), spec.getN(), spec.getH());
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
