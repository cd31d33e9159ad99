package dev.sextant.joinapi.reattest;

import dev.sextant.etcd.duty.Holding;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The join service's publisher until the list can be built and handed on, which two things keep from it:
 * the revoked members' discovery keys are not kept anywhere the join service can read them (a join ticket
 * request carries the key, but no key of docs/re-attestation.md stores it, so {@code revoked/<ak>} cannot
 * name it), and its node's {@code EndpointDiscovery} runs in the bootstrapper's process, not in this one
 * (no call from the join service reaches {@code publishRevocations}). Says so, once per revocation round,
 * so a revocation that stays in etcd only is never silent.
 */
final class UnwiredRevocationPublisher implements RevocationPublisher {
    private static final Logger LOG = LoggerFactory.getLogger(UnwiredRevocationPublisher.class);

    @Override
    public void publish(Holding tenure) {
        LOG.warn("the revocation is in etcd (revoked/<ak>, revocations/version) but no revocation list was published to"
                + " discovery: the join service holds no revoked member's discovery key and no hand-off to its node's discovery");
    }
}
