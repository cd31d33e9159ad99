package dev.sextant.tpmmanufacturer.provision;

/** AK provisioning failed: a TPM command, the EK certificate or the certificate issuance. */
public final class ProvisioningException extends Exception {
    public ProvisioningException(String message, Throwable cause) {
        super(message, cause);
    }
}
