package dev.sextant.joinapi.keyservice;

/**
 * The KMS keys the re-attestation holder works with. Holds secrets: no toString with content.
 *
 * @param measurementSecret the cluster's measurement secret, which the cluster ID is derived from
 * @param discoveryCaSeed   the seed of the discovery CA, which signs the revocation list
 */
public record ReAttestationKeys(byte[] measurementSecret, byte[] discoveryCaSeed) {
    @Override
    public String toString() {
        return "ReAttestationKeys[secrets redacted]";
    }
}
