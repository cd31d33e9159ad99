package dev.sextant.joinapi.keyservice;

/**
 * The KMS keys a join ticket is made with, fetched in one call. Holds secrets: no toString with
 * content.
 *
 * @param measurementSecret the cluster's measurement secret, which the cluster ID is derived from
 * @param diskKey           the joining node's state-disk key
 * @param discoveryKey      the endpoint-discovery group key
 * @param discoveryCaSeed   the seed of the discovery CA that certifies member keys; never leaves the join service
 */
public record JoinKeys(byte[] measurementSecret, byte[] diskKey, byte[] discoveryKey, byte[] discoveryCaSeed) {
    @Override
    public String toString() {
        return "JoinKeys[secrets redacted]";
    }
}
