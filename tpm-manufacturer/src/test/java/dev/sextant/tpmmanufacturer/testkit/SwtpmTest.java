package dev.sextant.tpmmanufacturer.testkit;

import dev.sextant.tpm.NvIndices;
import dev.sextant.tpm.command.TpmClient;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.CertPathValidator;
import java.security.cert.CertificateFactory;
import java.security.cert.PKIXParameters;
import java.security.cert.TrustAnchor;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SwtpmTest {
    @Test
    @DisplayName("a started swtpm has an EK certificate that chains (PKIX, no revocation) to its LocalCa")
    void ekCertificateChainsToLocalCa() throws Exception {
        Swtpm.assumeAvailable();
        try (Swtpm swtpm = Swtpm.start()) {
            assertEquals("swtpm:127.0.0.1:" + swtpm.port(), swtpm.tpmArg());
            TpmClient tpm = swtpm.client();
            CertificateFactory cf = CertificateFactory.getInstance("X.509");
            X509Certificate ek = (X509Certificate) cf.generateCertificate(
                    new ByteArrayInputStream(tpm.nv().read(NvIndices.EK_CERT_RSA)));
            PKIXParameters params = new PKIXParameters(Set.of(new TrustAnchor(swtpm.ca().certificate(), null)));
            params.setRevocationEnabled(false);
            CertPathValidator.getInstance("PKIX").validate(cf.generateCertPath(List.of(ek)), params);
            assertTrue(Files.readString(swtpm.ca().certPem()).startsWith("-----BEGIN CERTIFICATE-----"));
        }
    }

    @Test
    @DisplayName("closing a swtpm kills the process and deletes its state directory")
    void closeCleansUp() throws Exception {
        Swtpm.assumeAvailable();
        Path dir;
        try (Swtpm swtpm = Swtpm.start()) {
            dir = swtpm.dir();
            assertTrue(Files.isDirectory(dir.resolve("state")));
        }
        assertFalse(Files.exists(dir));
    }
}
