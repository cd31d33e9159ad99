package dev.sextant.attestation.verify;

import java.io.ByteArrayInputStream;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;

/**
 * How a verifier decides that an attestation key belongs to a real TPM. Exactly one mechanism per
 * verifier; the insecure one exists for development and says so on every use.
 */
public sealed interface AkTrust permits AkTrust.EkCa, AkTrust.InsecureAnyAk {

    /** Trust an AK whose certificate and bound EK certificate chain to one of these anchors. */
    static AkTrust ekCa(List<X509Certificate> anchors) {
        return new EkCa(anchors);
    }

    /** EK CA trust from a PEM bundle (the {@code --ek-ca} file): one or more concatenated certificates. */
    static AkTrust ekCaPem(byte[] pemBundle) throws CertificateException {
        List<X509Certificate> anchors = new ArrayList<>();
        for (Certificate c : CertificateFactory.getInstance("X.509").generateCertificates(new ByteArrayInputStream(pemBundle))) {
            anchors.add((X509Certificate) c);
        }
        if (anchors.isEmpty()) {
            throw new CertificateException("the EK CA bundle holds no certificate");
        }
        return new EkCa(anchors);
    }

    /** INSECURE: accept any AK. Logs a WARN on every verification. */
    static AkTrust insecureTrustAnyAk() {
        return new InsecureAnyAk();
    }

    record EkCa(List<X509Certificate> anchors) implements AkTrust {
        public EkCa {
            anchors = List.copyOf(anchors);
            if (anchors.isEmpty()) {
                throw new IllegalArgumentException("EK CA trust needs at least one anchor certificate");
            }
        }
    }

    record InsecureAnyAk() implements AkTrust {
    }
}
