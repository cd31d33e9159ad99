package dev.sextant.attestation.verify;

import dev.sextant.attestation.AkBinding;
import dev.sextant.attestation.digest.Sha256;
import dev.sextant.attestation.tpmstructures.TpmFormatException;
import dev.sextant.proto.v1.AttestationDocument;
import com.google.protobuf.ByteString;

import java.io.ByteArrayInputStream;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.PublicKey;
import java.security.cert.CertPathBuilder;
import java.security.cert.CertPathBuilderResult;
import java.security.cert.CertStore;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.CollectionCertStoreParameters;
import java.security.cert.PKIXBuilderParameters;
import java.security.cert.TrustAnchor;
import java.security.cert.X509CertSelector;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * AK trust through the EK CA (shared design decision "AK trust"): the EK certificate and the AK
 * certificate both chain to a configured anchor, the AK certificate certifies exactly the quoting
 * key, and its binding extension names that AK and that EK.
 */
final class EkCaTrust {
    /** More than any real EK chain (EK, platform CA, intermediate, root) needs. */
    private static final int MAX_INTERMEDIATES = 8;
    /** The JDK's PKIX path builder; a fresh builder per path, as one instance is not thread-safe. */
    static final PathBuilder PKIX = params -> CertPathBuilder.getInstance("PKIX").build(params);

    /**
     * Builds one certificate path. Constructor-injected so that a test can count the full checks
     * that a hit in {@link VerifiedAkChains} skips: a count is what tells "checked again in full"
     * from "refused again from the cache".
     */
    @FunctionalInterface
    interface PathBuilder {
        CertPathBuilderResult build(PKIXBuilderParameters params) throws GeneralSecurityException;
    }

    private final Set<TrustAnchor> anchors;
    private final VerifiedAkChains verified;
    private final Clock clock;
    private final PathBuilder paths;

    EkCaTrust(List<X509Certificate> anchorCerts) {
        this(anchorCerts, PKIX);
    }

    EkCaTrust(List<X509Certificate> anchorCerts, PathBuilder paths) {
        this(anchorCerts, new VerifiedAkChains(VerifiedAkChains.DEFAULT_CAPACITY), Clock.systemUTC(), paths);
    }

    EkCaTrust(List<X509Certificate> anchorCerts, VerifiedAkChains verified, Clock clock) {
        this(anchorCerts, verified, clock, PKIX);
    }

    private EkCaTrust(List<X509Certificate> anchorCerts, VerifiedAkChains verified, Clock clock, PathBuilder paths) {
        this.anchors = anchorCerts.stream().map(c -> new TrustAnchor(c, null)).collect(Collectors.toUnmodifiableSet());
        this.verified = verified;
        this.clock = clock;
        this.paths = paths;
    }

    /**
     * The certificates of a document that passed {@link #check}: {@link #remember} them once the whole
     * document has verified, so a machine whose quote is refused leaves nothing a later document could hit.
     */
    record Checked(ByteString key, VerifiedAkChains.Entry fresh) {
    }

    Checked check(AttestationDocument doc, PublicKey akKey, byte[] akName) throws AttestationRejected {
        if (doc.getEkCertificate().isEmpty() || doc.getAkCertificate().isEmpty()) {
            throw new AttestationRejected(Reason.UNTRUSTED_AK, "the document carries no EK or no AK certificate");
        }
        if (doc.getIntermediateCertificatesCount() > MAX_INTERMEDIATES) {
            throw new AttestationRejected(Reason.MALFORMED, "more than " + MAX_INTERMEDIATES + " intermediate certificates");
        }
        // Parsing and path building depend only on these exact bytes and the anchors: a node that was
        // accepted before skips them (VerifiedAkChains); everything below runs for every document.
        ByteString key = VerifiedAkChains.key(doc);
        Instant now = clock.instant();
        VerifiedAkChains.Entry known = verified.find(key, now);
        VerifiedAkChains.Entry fresh = null;
        X509Certificate ek;
        X509Certificate ak;
        if (known != null) {
            ek = known.ek();
            ak = known.ak();
        } else {
            ek = certificate(doc.getEkCertificate(), "EK certificate");
            ak = certificate(doc.getAkCertificate(), "AK certificate");
            List<X509Certificate> intermediates = new ArrayList<>();
            for (ByteString der : doc.getIntermediateCertificatesList()) {
                intermediates.add(certificate(der, "intermediate certificate"));
            }
            List<X509Certificate> paths = new ArrayList<>(chain(ek, intermediates, "EK certificate", now));
            paths.addAll(chain(ak, intermediates, "AK certificate", now));
            fresh = new VerifiedAkChains.Entry(ek, ak, latest(paths, X509Certificate::getNotBefore),
                    earliest(paths, X509Certificate::getNotAfter));
        }
        // The AK certificate must certify the key that signed the quote, byte for byte.
        byte[] certified = ak.getPublicKey().getEncoded();
        byte[] quoting = akKey.getEncoded();
        if (!MessageDigest.isEqual(certified, quoting)) {
            throw new AttestationRejected(Reason.UNTRUSTED_AK, "the AK certificate certifies another key than the document's AK");
        }
        checkBinding(ak, ek, akName);
        return new Checked(key, fresh);
    }

    /** Call only once the whole document {@code checked} came from has verified; a cache hit has nothing to add. */
    void remember(Checked checked) {
        if (checked.fresh() != null) {
            verified.remember(checked.key(), checked.fresh());
        }
    }

    private static Instant latest(List<X509Certificate> certs, Function<X509Certificate, Date> date) {
        return certs.stream().map(c -> date.apply(c).toInstant()).max(Instant::compareTo).orElseThrow();
    }

    private static Instant earliest(List<X509Certificate> certs, Function<X509Certificate, Date> date) {
        return certs.stream().map(c -> date.apply(c).toInstant()).min(Instant::compareTo).orElseThrow();
    }

    /** Binding extension: SEQUENCE { akName, sha256(EK SPKI) } must name this AK and this EK. */
    private static void checkBinding(X509Certificate ak, X509Certificate ek, byte[] akName) throws AttestationRejected {
        byte[] ext = ak.getExtensionValue(AkBinding.OID.getId());
        if (ext == null) {
            throw new AttestationRejected(Reason.UNTRUSTED_AK, "the AK certificate has no AK binding extension");
        }
        AkBinding binding;
        try {
            binding = AkBinding.decode(org.bouncycastle.asn1.ASN1OctetString.getInstance(ext).getOctets());
        } catch (TpmFormatException | IllegalArgumentException e) {
            throw new AttestationRejected(Reason.UNTRUSTED_AK, "the AK binding extension is malformed: " + e.getMessage());
        }
        if (!MessageDigest.isEqual(binding.akName(), akName)) {
            throw new AttestationRejected(Reason.UNTRUSTED_AK, "the AK binding names another AK than the document's");
        }
        if (!MessageDigest.isEqual(binding.ekSpkiSha256(), Sha256.of(ek.getPublicKey().getEncoded()))) {
            throw new AttestationRejected(Reason.UNTRUSTED_AK, "the AK binding names another EK than the document's EK certificate");
        }
    }

    /** PKIX path building (RFC 5280 §6) to a configured anchor; revocation is not checked by design. */
    void chain(X509Certificate cert, List<X509Certificate> intermediates, String what) throws AttestationRejected {
        chain(cert, intermediates, what, clock.instant());
    }

    /** @return the certificates of the built path, without the anchor (all valid at {@code now}) */
    private List<X509Certificate> chain(X509Certificate cert, List<X509Certificate> intermediates, String what,
            Instant now) throws AttestationRejected {
        try {
            X509CertSelector target = new X509CertSelector();
            target.setCertificate(cert);
            PKIXBuilderParameters params = new PKIXBuilderParameters(anchors, target);
            params.setRevocationEnabled(false);
            params.setDate(Date.from(now));
            List<X509Certificate> pool = new ArrayList<>(intermediates);
            pool.add(cert);
            params.addCertStore(CertStore.getInstance("Collection", new CollectionCertStoreParameters(pool)));
            params.addCertPathChecker(new TcgExtensionsChecker());
            CertPathBuilderResult built = paths.build(params);
            List<X509Certificate> path = new ArrayList<>();
            for (java.security.cert.Certificate c : built.getCertPath().getCertificates()) {
                path.add((X509Certificate) c);
            }
            return path;
        } catch (GeneralSecurityException e) {
            throw new AttestationRejected(Reason.UNTRUSTED_AK,
                    "the " + what + " does not chain to a configured EK CA: " + e.getMessage(), e);
        }
    }

    private static X509Certificate certificate(ByteString der, String what) throws AttestationRejected {
        try {
            return (X509Certificate) CertificateFactory.getInstance("X.509")
                    .generateCertificate(new ByteArrayInputStream(der.toByteArray()));
        } catch (CertificateException | RuntimeException e) {
            // The JDK's X.509 parser signals some malformed DER with unchecked exceptions.
            throw new AttestationRejected(Reason.MALFORMED, "the " + what + " is not a DER X.509 certificate", e);
        }
    }
}
