package dev.sextant.joinapi.reattest;

import java.util.Map;

/**
 * What a revocation does outside etcd (docs/re-attestation.md: where Kubernetes runs, the Node is cordoned
 * and tainted). The holder applies it after every round to every revoked node, its own revocations of that
 * round and all earlier ones, the operator's included: one call site serves both kinds, a step that failed
 * (an API server in trouble) is retried at the next round, and a new holder (a restart, a failover) applies
 * it at its first. So it must be idempotent and cheap when there is nothing to change, and it must not throw:
 * a failure is its to log.
 */
@FunctionalInterface
public interface RevokedNodeFollowUp {
    /**
     * @param reasonByNode every revoked node by name, with its revocation's reason ("PCR_MISMATCH: PCR 4 differs",
     *                     "OPERATOR"); never empty
     */
    void apply(Map<String, String> reasonByNode);

    /** Node-local mode (no Kubernetes): a revocation is etcd's and discovery's only; nothing to do, nothing to say. */
    static RevokedNodeFollowUp none() {
        return reasonByNode -> {
        };
    }
}
