package dev.sextant.joinapi.nodestate;

/**
 * What a write of an attested node's record did ({@link NodeStateStore#recordAttestation(String, String,
 * AttestationRecord, dev.sextant.etcd.client.Fence, long)}, {@link NodeStateStore#recordAttested}): every such write
 * is compared in etcd against the node's AK being revoked, so a record never outruns a revocation.
 */
public enum AttestationWrite {
    /** Written. */
    WRITTEN,
    /** Nothing written: {@code revoked/<ak>} exists (it may have come between the caller's read and this write). */
    REVOKED,
    /** Nothing written: the holder's tenure ended. */
    TENURE_ENDED,
    /**
     * Nothing written: the node's record changed since the round read it (a join or rejoin ticket wrote it while
     * the round was asking), so a result computed from the record read is stale. Only a round's writes see it.
     */
    SUPERSEDED
}
