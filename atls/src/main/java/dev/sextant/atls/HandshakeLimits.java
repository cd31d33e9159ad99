package dev.sextant.atls;

/**
 * How much handshake work an aTLS server accepts at once, so that a flood costs the attacker and
 * not the node: every handshake makes the server mint a key and quote its TPM (one TPM, serialized).
 *
 * @param perSource concurrent unfinished handshakes one source address may hold; more are closed at once
 * @param workers   threads that run handshake work (minting, quoting, verifying), off the event loop
 * @param queued    handshake tasks that may wait for a worker; beyond that a handshake fails at once
 */
public record HandshakeLimits(int perSource, int workers, int queued) {
    public HandshakeLimits {
        if (perSource < 1 || workers < 1 || queued < 1) {
            throw new IllegalArgumentException("handshake limits need perSource, workers and queued of at least 1");
        }
    }

    /**
     * A node's or join service's server: a TPM quote takes tens of milliseconds, and a worker spends
     * most of a handshake waiting for it; workers that wait together share the next quote (the
     * attester batches), so 8 workers make batches of up to 8 rather than 4 times the TPM work of 2.
     * 128 queued tasks wait under a second even with a slow TPM (16 batches of 8); a shorter queue
     * sheds nodes of a large pool joining at once, and each shed node backs off for seconds while
     * the server idles. 4 per source is more than any honest caller (init, verify, join) opens.
     */
    public static HandshakeLimits defaults() {
        return new HandshakeLimits(4, 8, 128);
    }
}
