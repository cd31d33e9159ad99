package dev.sextant.nodeboot.unlock;

import dev.sextant.nodeboot.bringup.Membership;
import dev.sextant.nodeboot.bringup.NodeState;
import dev.sextant.nodeboot.bringup.NodeStateFile;
import dev.sextant.nodeboot.bringup.Via;
import dev.sextant.diskcrypt.DiskCryptException;
import dev.sextant.diskcrypt.StateDisk;
import jakarta.inject.Singleton;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The one place a key offered at boot meets the state disk, whoever offers it (a rejoin ticket,
 * the operator's recovery): one attempt at a time, tried against the validated header copy without
 * mapping anything (a wrong key leaves the disk untouched), then the disk is opened and the node
 * state read back from it. The first key that works wins; later offers are told the disk is no
 * longer waiting. An offer made while another is being tried is turned away at once rather than
 * queued: each try costs the node an argon2id derivation, and a flood of guesses must not stand
 * between the operator and the disk for longer than one try.
 */
@Singleton
public final class DiskUnlocker {
    private static final Logger LOG = LoggerFactory.getLogger(DiskUnlocker.class);

    private final StateDisk disk;
    private final NodeStateFile stateFile;
    private final CompletableFuture<Membership> unlocked = new CompletableFuture<>();
    private final ReentrantLock trying = new ReentrantLock();
    private volatile String waitingUuid;

    public DiskUnlocker(StateDisk disk, NodeStateFile stateFile) {
        this.disk = disk;
        this.stateFile = stateFile;
    }

    /** From now on keys for {@code uuid} are accepted. */
    public void startWaiting(String uuid) {
        waitingUuid = uuid;
    }

    /** The UUID of the disk waiting for its key; null when none waits (not yet, or already open). */
    public String waitingFor() {
        return unlocked.isDone() ? null : waitingUuid;
    }

    /** Completes with the membership read back from the disk once a key opened it. */
    public CompletableFuture<Membership> unlocked() {
        return unlocked;
    }

    /**
     * Opens the disk with {@code key} for {@code diskUuid}; returns the node state read from it.
     *
     * @param via who offers the key: {@link Via#REJOIN} or {@link Via#RECOVERY}
     */
    public NodeState open(String diskUuid, byte[] key, Via via) throws UnlockRefused, InterruptedException {
        if (via.firstMembership()) {
            throw new IllegalArgumentException(via.label() + " starts on a fresh disk; it never unlocks one");
        }
        if (!trying.tryLock()) {
            throw new UnlockRefused(UnlockRefused.Kind.BUSY, "another key is being tried; ask again in a few seconds");
        }
        try {
            return tryKey(diskUuid, key, via);
        } finally {
            trying.unlock();
        }
    }

    private NodeState tryKey(String diskUuid, byte[] key, Via via) throws UnlockRefused, InterruptedException {
        String uuid = waitingFor();
        if (uuid == null) {
            throw new UnlockRefused(UnlockRefused.Kind.NOT_WAITING, "the state disk is not waiting for a key");
        }
        if (!uuid.equals(diskUuid)) {
            // The caller's text is not echoed back: only this node's own UUID goes into the answer.
            throw new UnlockRefused(UnlockRefused.Kind.WRONG_DISK, "the key is for another disk; this node's state disk is "
                    + uuid);
        }
        try {
            if (!disk.opensWith(key)) {
                LOG.warn("Unlock via {} refused: the key does not open state disk {}; the disk is untouched", via.label(), uuid);
                throw new UnlockRefused(UnlockRefused.Kind.WRONG_KEY, "the key does not open state disk " + uuid
                        + "; nothing was changed");
            }
            LOG.info("State disk {}: {}", uuid, disk.openAndMount(key));
        } catch (DiskCryptException e) {
            LOG.error("Unlock via {}: {}", via.label(), e.getMessage());
            throw new UnlockRefused(UnlockRefused.Kind.BROKEN, "the state disk could not be opened; see the node's console");
        }
        NodeState state;
        try {
            state = stateFile.read();
        } catch (IOException e) {
            LOG.error("Unlock via {}: the disk opened but its node state is unreadable: {}", via.label(), e.getMessage());
            throw new UnlockRefused(UnlockRefused.Kind.BROKEN, "the state disk opened but holds no readable node state;"
                    + " see the node's console");
        }
        unlocked.complete(via == Via.REJOIN ? Membership.rejoin(state, key) : Membership.recovery(state, key));
        return state;
    }
}
