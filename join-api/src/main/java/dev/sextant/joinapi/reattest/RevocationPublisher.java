package dev.sextant.joinapi.reattest;

import dev.sextant.etcd.duty.Holding;

/**
 * Hands the cluster's revocation list on after a round revoked a node: the holder signs it with the
 * discovery CA and gives it to its node's discovery (docs/re-attestation.md), which passes it to every member.
 */
@FunctionalInterface
public interface RevocationPublisher {
    /** Called by the holder, under {@code tenure}, after a round that revoked at least one node. */
    void publish(Holding tenure);

    static RevocationPublisher none() {
        return tenure -> {
        };
    }
}
