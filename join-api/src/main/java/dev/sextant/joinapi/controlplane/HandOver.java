package dev.sextant.joinapi.controlplane;

import dev.sextant.proto.v1.SignedMeasurements;
import java.util.Arrays;

/**
 * What a joining control plane is handed beside its etcd membership, as this join service's files hold
 * it: the master secret and its salt, the signed measurements and the EK CA bundle. Holds the master
 * secret: {@link #close()} zeroes it, and no toString shows it.
 *
 * @param ekCaPem empty in the development mode that trusts any AK
 */
public record HandOver(byte[] masterSecret, byte[] masterSalt, SignedMeasurements measurements, String ekCaPem)
        implements AutoCloseable {

    @Override
    public void close() {
        Arrays.fill(masterSecret, (byte) 0);
        Arrays.fill(masterSalt, (byte) 0);
    }

    @Override
    public String toString() {
        return "HandOver[secrets redacted]";
    }
}
