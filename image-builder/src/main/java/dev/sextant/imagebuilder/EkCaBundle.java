package dev.sextant.imagebuilder;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * The EK CA certificates ({@code sextant image build --ek-ca PEM}, repeatable) a node of the image
 * verifies its join service's TPM against. They are shipped in the verity-protected root, so the
 * root hash on the UKI's command line (PCR 11) and the UKI itself (PCR 4) cover them: whoever
 * verifies a node's PCRs verifies which EK CA it trusts. Only the certificates are re-encoded into
 * the bundle, nothing else of the files, since the image is public.
 */
public record EkCaBundle(List<X509Certificate> certificates) {
    /** Where the bundle lies in the root; node-boot's JoinServiceTrustSettings reads it there by default. */
    public static final String IMAGE_PATH = "usr/share/sextant/ek-ca.pem";
    /** The copy beside the built image: which EK CA the image holds, for tools that boot it. */
    public static final String OUT_FILE = "ek-ca.pem";
    /** An image without an EK CA: its nodes verify no join service, so they join no cluster. */
    private static final String REMEDY = "pass the PEM certificate of the CA that certifies the nodes' TPMs"
            + " (ca-cert.pem of `sextant tpm ca`, or the TPM vendor's)";
    public static final EkCaBundle NONE = new EkCaBundle(List.of());

    public EkCaBundle {
        certificates = List.copyOf(certificates);
    }

    /** The certificates of every file, in order; refuses a file with none, or with a private key. */
    public static EkCaBundle read(List<Path> pems) throws BuildException {
        List<X509Certificate> certificates = new ArrayList<>();
        for (Path pem : pems) {
            certificates.addAll(certificates(pem));
        }
        return new EkCaBundle(certificates);
    }

    private static List<X509Certificate> certificates(Path pem) throws BuildException {
        try {
            if (!Files.isRegularFile(pem)) {
                throw new BuildException("--ek-ca " + pem + ": no such file: " + REMEDY);
            }
            byte[] bytes = Files.readAllBytes(pem);
            if (new String(bytes, StandardCharsets.US_ASCII).contains("PRIVATE KEY")) {
                throw new BuildException("--ek-ca " + pem + " holds a private key: pass the CA's certificate"
                        + " (ca-cert.pem), never its key (the image is public)");
            }
            List<X509Certificate> found = new ArrayList<>();
            for (Certificate c : CertificateFactory.getInstance("X.509").generateCertificates(new ByteArrayInputStream(bytes))) {
                found.add((X509Certificate) c);
            }
            if (found.isEmpty()) {
                throw new BuildException("--ek-ca " + pem + " holds no certificate: " + REMEDY);
            }
            return found;
        } catch (IOException | CertificateException e) {
            throw new BuildException("--ek-ca " + pem + " cannot be read as PEM certificates: " + e.getMessage(), e);
        }
    }

    public boolean isEmpty() {
        return certificates.isEmpty();
    }

    public String pem() {
        StringBuilder out = new StringBuilder();
        Base64.Encoder base64 = Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII));
        for (X509Certificate c : certificates) {
            try {
                out.append("-----BEGIN CERTIFICATE-----\n").append(base64.encodeToString(c.getEncoded()))
                        .append("\n-----END CERTIFICATE-----\n");
            } catch (java.security.cert.CertificateEncodingException e) {
                throw new IllegalStateException("a parsed certificate cannot be encoded again", e);
            }
        }
        return out.toString();
    }

    public String describe() {
        return String.join("; ", certificates.stream().map(c -> c.getSubjectX500Principal().getName()).toList());
    }
}
