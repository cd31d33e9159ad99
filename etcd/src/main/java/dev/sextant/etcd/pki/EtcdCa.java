package dev.sextant.etcd.pki;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.net.InetAddress;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.SecureRandom;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.AuthorityKeyIdentifier;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.asn1.x509.SubjectKeyIdentifier;
import org.bouncycastle.asn1.x509.SubjectPublicKeyInfo;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.bc.BcX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;

/**
 * The cluster's etcd CA. Its key is derived from a 32-byte seed, the KMS data key {@link #KEY_ID} of the
 * master secret ({@link SeededP256Key}), and its certificate is fixed too: subject {@link #SUBJECT},
 * serial 1, valid from {@link #NOT_BEFORE} to {@link #NOT_AFTER}, signed with RFC 6979's deterministic
 * ECDSA. So every control plane derives a byte-identical CA certificate and nothing about the CA is
 * stored or sent. The subject carries no cluster ID: the seed differs per cluster, and with it the key
 * and the key identifier that name the CA in every certificate it issues.
 *
 * <p>The CA never expires on its own: it lives as long as the master secret it is derived from (a new
 * master secret is a new cluster). What it issues lives {@link #DEFAULT_VALIDITY} unless the caller says
 * otherwise, with a fresh key each time; a member or client is issued again at every start and once
 * {@link EtcdCredential#needsRenewal} says so. etcd 3.4 reads its certificate and key files on every new
 * TLS handshake, so a renewed pair written over the old files is served without a restart. Holds a
 * private key: no toString with content.
 */
public final class EtcdCa {
    /** The KMS key id of the seed. */
    public static final String KEY_ID = "etcd-ca";
    public static final X500Name SUBJECT = new X500Name("CN=sextant etcd CA");
    /**
     * A fixed validity, not the issuing clock: every control plane derives the CA certificate on its own
     * and must get the same bytes, so nothing in it may depend on when or where it was made.
     */
    public static final Instant NOT_BEFORE = Instant.parse("2026-01-01T00:00:00Z");
    /** RFC 5280 4.1.2.5: 99991231235959Z for a certificate with no well-defined expiration. */
    public static final Instant NOT_AFTER = Instant.parse("9999-12-31T23:59:59Z");
    public static final Duration DEFAULT_VALIDITY = Duration.ofDays(30);
    /** Clocks of freshly booted control planes may trail the issuer's a little. */
    public static final Duration BACKDATE = Duration.ofMinutes(5);

    private final SeededP256Key key;
    private final SecureRandom random;
    private final X509Certificate certificate;
    private final byte[] keyIdentifier;

    /**
     * @param seed   the 32-byte data key {@link #KEY_ID}
     * @param random for the keys and serial numbers of issued certificates (never for the CA itself)
     */
    public EtcdCa(byte[] seed, SecureRandom random) {
        this.key = new SeededP256Key(seed);
        this.random = random;
        this.keyIdentifier = new BcX509ExtensionUtils().createSubjectKeyIdentifier(key.publicKey()).getKeyIdentifier();
        this.certificate = selfSign();
    }

    /** The CA certificate: the same bytes on every control plane for one seed. */
    public X509Certificate certificate() {
        return certificate;
    }

    /**
     * A member's certificate, presented on its client port and, both ways, on its peer port: subject
     * {@code CN=<member>}, EKU serverAuth and clientAuth (etcd's peer connections use the one certificate
     * as server and as client), SANs the given DNS names (for instance {@code etcd-<member>.internal.<cluster>})
     * and addresses plus {@code localhost} and 127.0.0.1, which etcd's own gateway and local probes dial.
     */
    public EtcdCredential issueMember(String member, List<String> dnsNames, List<InetAddress> addresses,
                                      Instant now, Duration validity) {
        Set<GeneralName> names = new LinkedHashSet<>();
        for (String dns : dnsNames) {
            names.add(new GeneralName(GeneralName.dNSName, dns));
        }
        names.add(new GeneralName(GeneralName.dNSName, "localhost"));
        for (InetAddress address : addresses) {
            names.add(new GeneralName(GeneralName.iPAddress, address.getHostAddress()));
        }
        names.add(new GeneralName(GeneralName.iPAddress, "127.0.0.1"));
        return issue(member, new GeneralNames(names.toArray(GeneralName[]::new)),
                new KeyPurposeId[]{KeyPurposeId.id_kp_serverAuth, KeyPurposeId.id_kp_clientAuth}, now, validity);
    }

    /** A client's certificate: subject {@code CN=<client>} (for instance the control plane's node name), EKU clientAuth. */
    public EtcdCredential issueClient(String client, Instant now, Duration validity) {
        return issue(client, null, new KeyPurposeId[]{KeyPurposeId.id_kp_clientAuth}, now, validity);
    }

    private EtcdCredential issue(String commonName, GeneralNames sans, KeyPurposeId[] purposes, Instant now, Duration validity) {
        if (commonName == null || commonName.isBlank() || !commonName.matches("[A-Za-z0-9._-]{1,63}")) {
            throw new IllegalArgumentException("an etcd certificate's name must be 1 to 63 letters, digits, '.', '_' or '-': " + commonName);
        }
        if (validity.isNegative() || validity.isZero()) {
            throw new IllegalArgumentException("an etcd certificate's validity must be positive, got " + validity);
        }
        try {
            KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
            generator.initialize(new ECGenParameterSpec("secp256r1"), random);
            KeyPair pair = generator.generateKeyPair();
            X509v3CertificateBuilder builder = new X509v3CertificateBuilder(SUBJECT, new BigInteger(128, random).setBit(127),
                    Date.from(now.minus(BACKDATE)), Date.from(now.plus(validity)), new X500Name("CN=" + commonName),
                    SubjectPublicKeyInfo.getInstance(pair.getPublic().getEncoded()));
            BcX509ExtensionUtils utils = new BcX509ExtensionUtils();
            builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
            builder.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature));
            builder.addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(purposes));
            builder.addExtension(Extension.subjectKeyIdentifier, false,
                    utils.createSubjectKeyIdentifier(SubjectPublicKeyInfo.getInstance(pair.getPublic().getEncoded())));
            builder.addExtension(Extension.authorityKeyIdentifier, false,
                    new AuthorityKeyIdentifier(keyIdentifier));
            if (sans != null) {
                builder.addExtension(Extension.subjectAlternativeName, false, sans);
            }
            return new EtcdCredential(convert(builder.build(new DeterministicEcdsaSigner(key.privateKey()))), pair.getPrivate());
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("the JDK cannot make a P-256 key", e);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private X509Certificate selfSign() {
        try {
            X509v3CertificateBuilder builder = new X509v3CertificateBuilder(SUBJECT, BigInteger.ONE,
                    Date.from(NOT_BEFORE), Date.from(NOT_AFTER), SUBJECT, key.publicKey());
            builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(0));
            builder.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
            builder.addExtension(Extension.subjectKeyIdentifier, false,
                    new SubjectKeyIdentifier(keyIdentifier));
            return convert(builder.build(new DeterministicEcdsaSigner(key.privateKey())));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static X509Certificate convert(X509CertificateHolder holder) {
        try {
            return new JcaX509CertificateConverter().getCertificate(holder);
        } catch (CertificateException e) {
            throw new IllegalStateException("the JDK refuses a certificate the etcd CA just built", e);
        }
    }

    @Override
    public String toString() {
        return "EtcdCa[" + SUBJECT + ", private key redacted]";
    }
}
