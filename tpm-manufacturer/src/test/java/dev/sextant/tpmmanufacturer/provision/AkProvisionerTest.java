package dev.sextant.tpmmanufacturer.provision;

import dev.sextant.attestation.AkBinding;
import dev.sextant.attestation.tpmstructures.TpmtPublic;
import dev.sextant.tpm.NvIndices;
import dev.sextant.tpm.command.AkTemplate;
import dev.sextant.tpm.command.CreatedPrimary;
import dev.sextant.tpm.command.NvPublic;
import dev.sextant.tpm.command.TpmClient;
import dev.sextant.tpmmanufacturer.testkit.Swtpm;
import org.bouncycastle.asn1.ASN1OctetString;
import org.bouncycastle.asn1.ASN1Sequence;
import org.bouncycastle.cert.X509CertificateHolder;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.security.MessageDigest;
import java.security.cert.X509Certificate;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;

class AkProvisionerTest {
    private static Swtpm swtpm;

    @BeforeAll
    static void start() throws Exception {
        Swtpm.assumeAvailable();
        swtpm = Swtpm.provisioned();
    }

    @AfterAll
    static void stop() throws Exception {
        if (swtpm != null) {
            swtpm.close();
        }
    }

    private static X509Certificate storedAkCertificate(TpmClient tpm) throws Exception {
        return AkProvisioner.parse(tpm.nv().read(NvIndices.AK_CERT));
    }

    @Test
    @DisplayName("the AK certificate stored in NV certifies the AK under the EK's CA with the shared profile")
    void certificateProfile() throws Exception {
        TpmClient tpm = swtpm.client();
        X509Certificate cert = storedAkCertificate(tpm);
        cert.verify(swtpm.ca().certificate().getPublicKey());
        assertEquals("CN=sextant-ak", cert.getSubjectX500Principal().getName());
        assertEquals(swtpm.ca().certificate().getSubjectX500Principal(), cert.getIssuerX500Principal());
        long years = (cert.getNotAfter().getTime() - cert.getNotBefore().getTime()) / (365L * 24 * 3600 * 1000);
        assertEquals(10, years);
        CreatedPrimary ak = tpm.createAk(AkTemplate.ECC_P256);
        try {
            TpmtPublic area = TpmtPublic.parse(ak.tpmtPublic());
            assertEquals("EC", cert.getPublicKey().getAlgorithm(), "a new AK is ECC P-256");
            assertEquals(area.toJavaPublicKey(), cert.getPublicKey());
            assertArrayEquals(area.name(), ak.name(), "our name computation matches the TPM's");
        } finally {
            tpm.flushContext(ak.handle());
        }
    }

    @Test
    @DisplayName("the AK binding extension holds the AK name and SHA-256 of the EK certificate's SPKI")
    void bindingExtension() throws Exception {
        TpmClient tpm = swtpm.client();
        X509Certificate cert = storedAkCertificate(tpm);
        assertFalse(cert.getCriticalExtensionOIDs() != null
                && cert.getCriticalExtensionOIDs().contains(AkBinding.OID.getId()));
        byte[] ext = cert.getExtensionValue(AkBinding.OID.getId());
        assertNotNull(ext, "binding extension present");
        ASN1Sequence seq = ASN1Sequence.getInstance(ASN1OctetString.getInstance(ext).getOctets());
        assertEquals(2, seq.size());
        CreatedPrimary ak = tpm.createAk(AkTemplate.ECC_P256);
        tpm.flushContext(ak.handle());
        assertArrayEquals(ak.name(), ASN1OctetString.getInstance(seq.getObjectAt(0)).getOctets());
        byte[] ekDer = tpm.nv().read(NvIndices.EK_CERT_RSA);
        byte[] spki = new X509CertificateHolder(ekDer).getSubjectPublicKeyInfo().getEncoded("DER");
        assertArrayEquals(MessageDigest.getInstance("SHA-256").digest(spki),
                ASN1OctetString.getInstance(seq.getObjectAt(1)).getOctets());
    }

    @Test
    @DisplayName("the AK certificate index is owner/auth read-write, no_da, and holds exactly the DER")
    void nvIndexAttributes() throws Exception {
        NvPublic pub = swtpm.client().nv().readPublic(NvIndices.AK_CERT);
        assertEquals(AkProvisioner.AK_CERT_ATTRIBUTES | NvPublic.WRITTEN, pub.attributes());
        assertEquals(storedAkCertificate(swtpm.client()).getEncoded().length, pub.dataSize());
    }

    @Test
    @DisplayName("provisioning again keeps the stored certificate (idempotent)")
    void idempotent() throws Exception {
        X509Certificate before = storedAkCertificate(swtpm.client());
        X509Certificate again = new AkProvisioner(swtpm.client(), swtpm.ca().certificate(), swtpm.ca().key()).provision();
        assertEquals(before, again);
        assertEquals(before, storedAkCertificate(swtpm.client()));
    }

    @Test
    @DisplayName("provisioning with another CA replaces the certificate, redefining the index")
    void anotherCaReplaces() throws Exception {
        var other = dev.sextant.tpmmanufacturer.swtpm.LocalCa.create(swtpm.dir().resolve("other-ca"), "Other CA");
        X509Certificate replaced = new AkProvisioner(swtpm.client(), other.certificate(), other.key()).provision();
        replaced.verify(other.certificate().getPublicKey());
        assertEquals(replaced, storedAkCertificate(swtpm.client()));
        new AkProvisioner(swtpm.client(), swtpm.ca().certificate(), swtpm.ca().key()).provision()
                .verify(swtpm.ca().certificate().getPublicKey());
    }

    @Test
    @DisplayName("provisioning again keeps a certificate of an RSA AK (provisioned before ECC), even when asked for ECC")
    void keepsRsaAk() throws Exception {
        try (Swtpm legacy = Swtpm.provisioned(AkTemplate.RSA_2048)) {
            X509Certificate before = storedAkCertificate(legacy.client());
            assertEquals("RSA", before.getPublicKey().getAlgorithm());
            X509Certificate again = new AkProvisioner(legacy.client(), legacy.ca().certificate(), legacy.ca().key())
                    .provision(AkTemplate.ECC_P256);
            assertEquals(before, again, "the join service binds this TPM's disk and name to its RSA AK");
            assertEquals(before, storedAkCertificate(legacy.client()));
        }
    }

    @Test
    @DisplayName("the AK is the same key after a swtpm restart on the same state")
    void akSurvivesRestart() throws Exception {
        CreatedPrimary before = swtpm.client().createAk(AkTemplate.ECC_P256);
        swtpm.client().flushContext(before.handle());
        swtpm.restart();
        CreatedPrimary after = swtpm.client().createAk(AkTemplate.ECC_P256);
        swtpm.client().flushContext(after.handle());
        assertArrayEquals(before.tpmtPublic(), after.tpmtPublic());
        assertEquals(TpmtPublic.parse(after.tpmtPublic()).toJavaPublicKey(),
                storedAkCertificate(swtpm.client()).getPublicKey());
    }
}
