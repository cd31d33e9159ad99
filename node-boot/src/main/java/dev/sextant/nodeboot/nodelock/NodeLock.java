package dev.sextant.nodeboot.nodelock;

import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The point of no return: a one-way, try-once lock that init and join race for. The winner marks
 * the TPM (PCR 15 event over the cluster ID), so the node can never again attest as a fresh node
 * until it reboots; the loser learns who won and stops. There is deliberately no unlock.
 *
 * <p>A first membership (init, join) also has the TPM remember its state disk between taking the
 * lock and marking PCR 15 ({@link FirstBootstrapRecorder}): the last moment a genuine image meets
 * the record's write policy, and the only one.
 */
@Singleton
public final class NodeLock {
    private static final Logger LOG = LoggerFactory.getLogger(NodeLock.class);

    private final AtomicReference<LockHolder> holder = new AtomicReference<>();
    private final PcrMarker marker;
    private final FirstBootstrapRecorder recorder;

    /** A lock that records nothing (tests of the lock alone, nodes without a TPM record). */
    public NodeLock(PcrMarker marker) throws IOException {
        this(marker, null);
    }

    /** Starts locked when the TPM is already marked, e.g. after the bootstrapper process was restarted. */
    @Inject
    public NodeLock(PcrMarker marker, FirstBootstrapRecorder recorder) throws IOException {
        this.marker = marker;
        this.recorder = recorder;
        if (marker.alreadyMarked()) {
            holder.set(LockHolder.EARLIER_RUN);
            LOG.warn("PCR 15 is already marked: this node was bootstrapped earlier in this boot; init and join stay locked");
        }
    }

    /**
     * Takes the lock for {@code who} unless some path already has it. The marking happens after the
     * compare-and-set, so a failure to mark still leaves the node locked: the caller must treat that
     * as fatal (reset and reboot), never retry the other path on a half-marked TPM.
     */
    public LockResult tryLockOnce(LockHolder who, byte[] clusterId) throws IOException {
        return tryLockOnce(who, clusterId, null);
    }

    /**
     * As {@link #tryLockOnce(LockHolder, byte[])}; for init and join, {@code first} is what the TPM
     * remembers before the mark. A lock with a recorder refuses a first membership without it:
     * a node whose disk its TPM does not remember could never unlock that disk again.
     */
    public LockResult tryLockOnce(LockHolder who, byte[] clusterId, FirstBootstrap first) throws IOException {
        LockHolder earlier = holder.get();
        if (earlier != null) {
            return new LockResult.AlreadyLocked(earlier);
        }
        boolean firstMembership = who == LockHolder.INIT || who == LockHolder.JOIN;
        if (firstMembership && recorder != null && first == null) {
            throw new IllegalArgumentException(who.label() + " takes the lock with what the TPM is to remember");
        }
        if (!holder.compareAndSet(null, who)) {
            return new LockResult.AlreadyLocked(holder.get());
        }
        if (firstMembership && recorder != null) {
            LOG.info("Node lock taken by {}; the TPM remembers the state disk, then PCR 15 is marked", who.label());
            recorder.remember(first);
        }
        LOG.info("Node lock taken by {}; marking PCR 15 with the cluster ID", who.label());
        marker.mark(clusterId.clone());
        return new LockResult.Acquired(who);
    }

    public boolean isLocked() {
        return holder.get() != null;
    }

    public Optional<LockHolder> holder() {
        return Optional.ofNullable(holder.get());
    }
}
