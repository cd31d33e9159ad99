package dev.sextant.tpmmanufacturer.provision;

import dev.sextant.attestation.tpmstructures.TpmFormatException;
import dev.sextant.tpm.NvIndices;
import dev.sextant.tpm.command.CreatedPrimary;
import dev.sextant.tpm.command.NvPublic;
import dev.sextant.tpm.command.TpmClient;
import dev.sextant.tpm.command.TpmException;
import dev.sextant.tpm.command.TpmRc;

import java.io.ByteArrayInputStream;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.interfaces.RSAPublicKey;
import java.util.Optional;

/**
 * Factory provisioning of the AK (like a TCG IAK certificate): derive the AK, read the EK
 * certificate, have the EK's CA certify the AK, store that certificate in NV 0x01381001.
 * Idempotent: a stored certificate that already certifies this AK under this CA is kept.
 */
public final class AkProvisioner {
    /** ownerwrite|authwrite|ownerread|authread|no_da, ordinary index (shared design "AK trust"). */
    static final int AK_CERT_ATTRIBUTES = NvPublic.OWNERWRITE | NvPublic.AUTHWRITE
            | NvPublic.OWNERREAD | NvPublic.AUTHREAD | NvPublic.NO_DA;

    private final TpmClient client;
    private final X509Certificate caCertificate;
    private final AkCertificateIssuer issuer;

    public AkProvisioner(TpmClient client, X509Certificate caCertificate, PrivateKey caKey) {
        this.client = client;
        this.caCertificate = caCertificate;
        this.issuer = new AkCertificateIssuer(caCertificate, caKey);
    }

    /** Returns the AK certificate now stored in the TPM (new or kept). */
    public X509Certificate provision() throws ProvisioningException {
        return client.exclusive(this::provisionLocked);
    }

    private X509Certificate provisionLocked() throws ProvisioningException {
        CreatedPrimary ak;
        try {
            ak = client.createAk();
        } catch (TpmException e) {
            throw new ProvisioningException("creating the AK: " + e.getMessage(), e);
        }
        try {
            RSAPublicKey akKey = AkPublicKeys.rsaPublicKey(ak.tpmtPublic());
            X509Certificate ek = parse(client.nv().read(NvIndices.EK_CERT_RSA));
            Optional<X509Certificate> existing = storedCertificateFor(akKey);
            if (existing.isPresent()) {
                return existing.get();
            }
            X509Certificate cert = issuer.issue(akKey, AkPublicKeys.name(ak.tpmtPublic()), ek);
            store(cert.getEncoded());
            return cert;
        } catch (TpmFormatException e) {
            throw new ProvisioningException("the TPM returned a malformed AK public area: " + e.getMessage(), e);
        } catch (TpmException e) {
            throw new ProvisioningException("provisioning the AK certificate: " + e.getMessage(), e);
        } catch (GeneralSecurityException e) {
            throw new ProvisioningException("issuing the AK certificate: " + e.getMessage(), e);
        } finally {
            flush(ak.handle());
        }
    }

    private void flush(int handle) throws ProvisioningException {
        try {
            client.flushContext(handle);
        } catch (TpmException e) {
            throw new ProvisioningException("flushing the AK: " + e.getMessage(), e);
        }
    }

    private Optional<X509Certificate> storedCertificateFor(RSAPublicKey akKey) throws TpmException {
        byte[] stored;
        try {
            stored = client.nv().read(NvIndices.AK_CERT);
        } catch (TpmException e) {
            if (e.is(TpmRc.HANDLE) || e.is(TpmRc.NV_UNINITIALIZED_BASE)) {
                return Optional.empty();
            }
            throw e;
        }
        try {
            X509Certificate cert = parse(stored);
            cert.verify(caCertificate.getPublicKey());
            return cert.getPublicKey().equals(akKey) ? Optional.of(cert) : Optional.empty();
        } catch (GeneralSecurityException | RuntimeException e) {
            return Optional.empty();   // garbage, another CA or another key: replace it
        }
    }

    // NV_DefineSpace fixes the size, so a certificate of another length needs the index redefined.
    private void store(byte[] der) throws TpmException {
        try {
            client.nv().undefineSpace(NvIndices.AK_CERT);
        } catch (TpmException e) {
            if (!e.is(TpmRc.HANDLE)) {
                throw e;
            }
        }
        client.nv().defineSpace(NvIndices.AK_CERT, AK_CERT_ATTRIBUTES, der.length);
        client.nv().write(NvIndices.AK_CERT, der);
    }

    static X509Certificate parse(byte[] der) throws GeneralSecurityException {
        return (X509Certificate) CertificateFactory.getInstance("X.509")
                .generateCertificate(new ByteArrayInputStream(der));
    }
}
