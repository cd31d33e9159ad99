package dev.sextant.etcd.duty;

import dev.sextant.etcd.client.EtcdException;

/**
 * What a {@link DutyHolder} tells its owner, in order: a tenure begins, a tenure ends (on the holder's
 * own thread; a resignation's end on the thread that closes it, once the holder's thread has stopped). It informs (logs, metrics, a timeline); it does not gate the work, which asks
 * {@link DutyHolder#isHolder()} before each round. A listener must return quickly: the holder's thread
 * renews the lease too, and a listener that blocks beyond the term costs the tenure.
 */
public interface DutyListener {
    /** This process holds the duty from now on, under {@code holding}'s lease. */
    void onTaken(Holding holding);

    /**
     * This process no longer holds the duty, and {@link DutyHolder#isHolder()} said so before this was called.
     * {@code reason} says why: resigned, the keep-alive failed (naming the endpoints), etcd said the lease is
     * gone, or the term ran out before a renewal (a pause).
     */
    void onLost(Holding holding, String reason);

    /** An attempt to take the duty failed in etcd (not: another holds it). Retried after a beat. */
    default void onAttemptFailed(EtcdException e) {
    }

    /** A listener that says nothing. */
    static DutyListener none() {
        return new DutyListener() {
            @Override
            public void onTaken(Holding holding) {
            }

            @Override
            public void onLost(Holding holding, String reason) {
            }
        };
    }
}
