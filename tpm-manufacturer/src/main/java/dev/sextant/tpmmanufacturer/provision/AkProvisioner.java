package dev.sextant.tpmmanufacturer.provision;

import dev.sextant.attestation.tpmstructures.TpmFormatException;
import dev.sextant.attestation.tpmstructures.TpmtPublic;
import dev.sextant.tpm.NvIndices;
import dev.sextant.tpm.command.AkTemplate;
import dev.sextant.tpm.command.CreatedPrimary;
import dev.sextant.tpm.command.NvPublic;
import dev.sextant.tpm.command.TpmClient;
import dev.sextant.tpm.command.TpmException;
import dev.sextant.tpm.command.TpmRc;

import java.io.ByteArrayInputStream;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.Optional;

/**
 * Factory provisioning of the AK (like a TCG IAK certificate): derive the AK, read the EK
 * certificate, have the EK's CA certify the AK, store that certificate in NV 0x01381001.
 * Idempotent: a stored certificate that already certifies this TPM's AK under this CA is kept,
 * whichever {@link AkTemplate} made it, since the join service binds disks and names to the AK.
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

    /** Returns the AK certificate now stored in the TPM (kept, or new for an {@link AkTemplate#ECC_P256} AK). */
    public X509Certificate provision() throws ProvisioningException {
        return provision(AkTemplate.ECC_P256);
    }

    /** As {@link #provision()}, with {@code template} for the AK of a new certificate. */
    public X509Certificate provision(AkTemplate template) throws ProvisioningException {
        return client.exclusive(() -> provisionLocked(template));
    }

    private X509Certificate provisionLocked(AkTemplate template) throws ProvisioningException {
        try {
            X509Certificate ek = parse(client.nv().read(NvIndices.EK_CERT_RSA));
            Optional<X509Certificate> stored = storedCertificate();
            Optional<AkTemplate> storedTemplate = stored.flatMap(c -> AkTemplate.certifying(c.getPublicKey()));
            if (storedTemplate.isPresent()) {
                X509Certificate kept = stored.get();
                if (withAk(storedTemplate.get(), ak -> ak.key().equals(kept.getPublicKey()))) {
                    return kept;
                }
            }
            X509Certificate cert = withAk(template, ak -> issuer.issue(ak.key(), ak.name(), ek));
            store(cert.getEncoded());
            return cert;
        } catch (TpmException e) {
            throw new ProvisioningException("provisioning the AK certificate: " + e.getMessage(), e);
        } catch (GeneralSecurityException e) {
            throw new ProvisioningException("issuing the AK certificate: " + e.getMessage(), e);
        }
    }

    /** The AK's key and TPM name, as the TPM returned its public area. */
    private record Ak(PublicKey key, byte[] name) {}

    @FunctionalInterface
    private interface AkUse<T> {
        T apply(Ak ak) throws GeneralSecurityException, TpmException;
    }

    private <T> T withAk(AkTemplate template, AkUse<T> use) throws ProvisioningException, GeneralSecurityException,
            TpmException {
        CreatedPrimary created;
        try {
            created = client.createAk(template);
        } catch (TpmException e) {
            throw new ProvisioningException("creating the AK: " + e.getMessage(), e);
        }
        try {
            TpmtPublic area = TpmtPublic.parse(created.tpmtPublic());
            return use.apply(new Ak(area.toJavaPublicKey(), area.name()));
        } catch (TpmFormatException e) {
            throw new ProvisioningException("the TPM returned a malformed AK public area: " + e.getMessage(), e);
        } finally {
            flush(created.handle());
        }
    }

    private void flush(int handle) throws ProvisioningException {
        try {
            client.flushContext(handle);
        } catch (TpmException e) {
            throw new ProvisioningException("flushing the AK: " + e.getMessage(), e);
        }
    }

    /** The stored AK certificate if this CA issued it; empty when there is none or it is another's. */
    private Optional<X509Certificate> storedCertificate() throws TpmException {
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
            return Optional.of(cert);
        } catch (GeneralSecurityException | RuntimeException e) {
            return Optional.empty();   // garbage or another CA's: replace it
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
