package dev.sextant.tpmmanufacturer.swtpm;

import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

import java.io.IOException;
import java.io.StringWriter;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;

/**
 * A local EK/AK CA, the "manufacturer" of emulated TPMs: an RSA-2048 key and a self-signed
 * certificate, kept as PEM files ({@link #keyPem()}, {@link #certPem()}) for swtpm_localca (EK
 * certificates), for AK provisioning and for verifiers' {@code --ek-ca}.
 */
public final class LocalCa {
    private final PrivateKey key;
    private final X509Certificate certificate;
    private final Path keyPem;
    private final Path certPem;

    private LocalCa(PrivateKey key, X509Certificate certificate, Path keyPem, Path certPem) {
        this.key = key;
        this.certificate = certificate;
        this.keyPem = keyPem;
        this.certPem = certPem;
    }

    /** Generates a CA named {@code CN=<name>} and writes key.pem and cert.pem into {@code dir}. */
    public static LocalCa create(Path dir, String name) throws Exception {
        KeyPairGenerator gen = KeyPairGenerator.getInstance("RSA");
        gen.initialize(2048);
        KeyPair pair = gen.generateKeyPair();
        Instant now = Instant.now();
        X500Name subject = new X500Name("CN=" + name);
        var builder = new JcaX509v3CertificateBuilder(subject, BigInteger.valueOf(now.toEpochMilli()),
                Date.from(now.minus(Duration.ofHours(1))), Date.from(now.plus(Duration.ofDays(3650))),
                subject, pair.getPublic());
        builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(true));
        builder.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
        // swtpm_cert copies the issuer's subjectKeyIdentifier into the EK certificate's
        // authorityKeyIdentifier and refuses to sign without one.
        builder.addExtension(Extension.subjectKeyIdentifier, false,
                new JcaX509ExtensionUtils().createSubjectKeyIdentifier(pair.getPublic()));
        X509Certificate cert = new JcaX509CertificateConverter().getCertificate(
                builder.build(new JcaContentSignerBuilder("SHA256withRSA").build(pair.getPrivate())));
        Files.createDirectories(dir);
        Path keyPem = dir.resolve("ca-key.pem");
        Path certPem = dir.resolve("ca-cert.pem");
        Files.writeString(keyPem, pem(pair.getPrivate()));
        Files.writeString(certPem, pem(cert));
        return new LocalCa(pair.getPrivate(), cert, keyPem, certPem);
    }

    /** Loads a CA written earlier by {@link #create}. */
    public static LocalCa load(Path dir) throws IOException {
        Path keyPem = dir.resolve("ca-key.pem");
        Path certPem = dir.resolve("ca-cert.pem");
        try (var keyReader = Files.newBufferedReader(keyPem); var certReader = Files.newBufferedReader(certPem)) {
            Object key = new PEMParser(keyReader).readObject();
            Object cert = new PEMParser(certReader).readObject();
            if (!(key instanceof PEMKeyPair pair) || !(cert instanceof X509CertificateHolder holder)) {
                throw new IOException("not a CA written by LocalCa: " + dir);
            }
            return new LocalCa(new JcaPEMKeyConverter().getPrivateKey(pair.getPrivateKeyInfo()),
                    new JcaX509CertificateConverter().getCertificate(holder), keyPem, certPem);
        } catch (java.security.cert.CertificateException e) {
            throw new IOException("unreadable CA certificate " + certPem + ": " + e.getMessage(), e);
        }
    }

    static String pem(Object o) throws IOException {
        StringWriter s = new StringWriter();
        try (JcaPEMWriter w = new JcaPEMWriter(s)) {
            w.writeObject(o);
        }
        return s.toString();
    }

    public PrivateKey key() { return key; }

    public X509Certificate certificate() { return certificate; }

    public Path keyPem() { return keyPem; }

    public Path certPem() { return certPem; }
}
