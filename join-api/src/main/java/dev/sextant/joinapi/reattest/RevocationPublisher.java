package dev.sextant.joinapi.reattest;

import dev.sextant.etcd.client.Fence;
import java.util.Optional;

/**
 * Hands the cluster's revocation list on: signed with the discovery CA and written to
 * {@code revocations/list}, where every control plane's bootstrapper picks it up for its node's
 * discovery, which passes it to every member (docs/re-attestation.md).
 */
@FunctionalInterface
public interface RevocationPublisher {
    /**
     * Publishes the list of every revocation in etcd if a newer one is due. The holder calls it under
     * its tenure (every round: a list a failed publication left unwritten is written at the next one), the
     * operator's {@code Revoke} without (empty) after each revocation.
     */
    void publish(Optional<Fence> tenure);

    static RevocationPublisher none() {
        return tenure -> {
        };
    }
}
