package dev.sextant.nodeboot.unlock;

import dev.sextant.nodeboot.bringup.BootstrapStatus;
import dev.sextant.nodeboot.bringup.Membership;
import dev.sextant.nodeboot.bringup.NodeState;
import dev.sextant.nodeboot.bringup.NodeStateFile;
import dev.sextant.nodeboot.bringup.Via;
import dev.sextant.diskcrypt.DiskCryptException;
import dev.sextant.diskcrypt.KeyCheckValue;
import dev.sextant.diskcrypt.StateDisk;
import dev.sextant.nodeboot.rememberdisk.RememberedDisk;
import jakarta.inject.Singleton;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.HexFormat;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The one place a key offered at boot meets the state disk, whoever offers it (a rejoin ticket,
 * the operator's recovery): one attempt at a time, tried against the validated header copy without
 * mapping anything (a wrong key leaves the disk untouched), then the disk is opened and the node
 * state read back from it. The first key that works wins; later offers are told the disk is no
 * longer waiting.
 *
 * <p>Each try costs an argon2id derivation, seconds on a node, and anyone who reaches the recovery
 * port may offer keys. So a recovery key is first held against the disk's {@link KeyCheckValue}:
 * a wrong one is refused there, without a try and without taking the slot, and cannot stand
 * between the operator and the disk. A key that passes waits for the slot (only the right key
 * passes). A rejoin key comes from an attested join service and is tried regardless, waiting for
 * the slot. Only on a disk without a check value (formatted before there were any), where every
 * guess costs a try, is a recovery key that finds the slot taken turned away BUSY: guesses never
 * queue there, and the slot is fair, so a waiting rejoin key goes next.
 *
 * <p>What the node's TPM remembers of its disk ({@link RememberedDisk}) comes before all of that:
 * any key, from rejoin or recovery, that is not the key the node bootstrapped the remembered disk
 * with is refused without a try (a disk the host formatted under the same UUID opens with the
 * host's key, not with that one), and the node state read back must name the cluster and role the
 * TPM remembers, or nothing acts on it.
 */
@Singleton
public final class DiskUnlocker {
    private static final Logger LOG = LoggerFactory.getLogger(DiskUnlocker.class);
    /** A flood of wrong keys must not flood the console: the first and every thousandth refusal are logged. */
    private static final long LOG_EVERY = 1000;

    private final StateDisk disk;
    private final NodeStateFile stateFile;
    private final CompletableFuture<Membership> unlocked = new CompletableFuture<>();
    private final ReentrantLock trying = new ReentrantLock(true);
    private final AtomicLong checkRefusals = new AtomicLong();
    private volatile String waitingUuid;
    private volatile Optional<KeyCheckValue> checkValue = Optional.empty();
    private volatile RememberedDisk remembered;
    private final AtomicLong memoryRefusals = new AtomicLong();

    public DiskUnlocker(StateDisk disk, NodeStateFile stateFile) {
        this.disk = disk;
        this.stateFile = stateFile;
    }

    /** From now on keys for {@code uuid} are accepted, held first against the disk's check value if it has one. */
    public void startWaiting(String uuid) throws InterruptedException {
        startWaiting(uuid, null);
    }

    /**
     * As {@link #startWaiting(String)}; every key is first held against {@code remembered}, the TPM's
     * record of the disk (null only for a disk adopted under the insecure setting, which has none).
     */
    public void startWaiting(String uuid, RememberedDisk remembered) throws InterruptedException {
        if (remembered != null && !remembered.isDisk(uuid)) {
            throw new IllegalArgumentException("state disk " + uuid + " is not the remembered " + remembered.diskUuid());
        }
        this.remembered = remembered;
        try {
            checkValue = disk.keyCheckValue();
        } catch (DiskCryptException e) {
            LOG.warn("State disk {}: its key check value is unreadable: {}", uuid, e.getMessage());
        }
        if (checkValue.isEmpty()) {
            LOG.warn("State disk {} has no key check value: a recovery key offered while another is tried is turned"
                    + " away BUSY", uuid);
        }
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
        return open(diskUuid, key, via, Optional.empty());
    }

    /**
     * As {@link #open(String, byte[], Via)}, for a rejoin whose join service proved the cluster's join
     * service role key ({@code provenRoleKey}) in the handshake that brought {@code key}: if this key opens
     * the disk, the membership carries the role key ({@link Membership#knowingJoinServiceRole}), which a
     * record of version 1 then learns. A key that does not open the disk takes its role key with it.
     */
    public NodeState open(String diskUuid, byte[] key, Via via, Optional<byte[]> provenRoleKey)
            throws UnlockRefused, InterruptedException {
        if (via.firstMembership()) {
            throw new IllegalArgumentException(via.label() + " starts on a fresh disk; it never unlocks one");
        }
        String uuid = waitingDisk(diskUuid);
        RememberedDisk memory = remembered;
        if (memory != null && !memory.isKey(key)) {
            long refused = memoryRefusals.incrementAndGet();
            if (refused == 1 || refused % LOG_EVERY == 0) {
                LOG.warn("Unlock via {} refused: not the key of state disk {} as this node's TPM remembers it ({} such keys"
                        + " so far); no try, the disk is untouched", via.label(), uuid, refused);
            }
            throw wrongKey(uuid);
        }
        Optional<KeyCheckValue> check = checkValue;
        if (via == Via.RECOVERY && check.isPresent() && !check.get().matches(key)) {
            long refused = checkRefusals.incrementAndGet();
            if (refused == 1 || refused % LOG_EVERY == 0) {
                LOG.warn("Unlock via {} refused by the check value of state disk {} ({} such keys so far): no argon2id"
                        + " try, the disk is untouched", via.label(), uuid, refused);
            }
            throw wrongKey(uuid);
        }
        if (via == Via.REJOIN || check.isPresent() || memory != null) {
            trying.lockInterruptibly();
        } else if (!trying.tryLock(0, TimeUnit.SECONDS)) {
            throw new UnlockRefused(UnlockRefused.Kind.BUSY, "another key is being tried; ask again in a few seconds");
        }
        try {
            return tryKey(waitingDisk(diskUuid), key, via, via == Via.REJOIN ? provenRoleKey : Optional.empty());
        } finally {
            trying.unlock();
        }
    }

    /** The waiting disk's UUID when {@code diskUuid} names it. */
    private String waitingDisk(String diskUuid) throws UnlockRefused {
        String uuid = waitingFor();
        if (uuid == null) {
            throw new UnlockRefused(UnlockRefused.Kind.NOT_WAITING, "the state disk is not waiting for a key");
        }
        if (!uuid.equals(diskUuid)) {
            // The caller's text is not echoed back: only this node's own UUID goes into the answer.
            throw new UnlockRefused(UnlockRefused.Kind.WRONG_DISK, "the key is for another disk; this node's state disk is "
                    + uuid);
        }
        return uuid;
    }

    private static UnlockRefused wrongKey(String uuid) {
        return new UnlockRefused(UnlockRefused.Kind.WRONG_KEY, "the key does not open state disk " + uuid
                + "; nothing was changed");
    }

    /** Null when the node state names the cluster and role the TPM remembers; else how it differs. */
    private static String mismatch(RememberedDisk memory, NodeState state) {
        byte[] clusterId;
        try {
            clusterId = HexFormat.of().parseHex(state.clusterIdHex());
        } catch (IllegalArgumentException e) {
            return "holds a cluster ID that is not hex";
        }
        if (!memory.isCluster(clusterId)) {
            return "names another cluster than the TPM remembers";
        }
        boolean controlPlane = BootstrapStatus.Role.CONTROL_PLANE.label().equals(state.role());
        if (controlPlane != memory.controlPlane()) {
            return "names role " + state.role() + ", the TPM remembers a " + (memory.controlPlane() ? "control plane" : "worker");
        }
        return null;
    }

    private NodeState tryKey(String uuid, byte[] key, Via via, Optional<byte[]> provenRoleKey)
            throws UnlockRefused, InterruptedException {
        try {
            if (!disk.opensWith(key)) {
                LOG.warn("Unlock via {} refused: the key does not open state disk {}; the disk is untouched", via.label(), uuid);
                throw wrongKey(uuid);
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
        RememberedDisk memory = remembered;
        String mismatch = memory == null ? null : mismatch(memory, state);
        if (mismatch != null) {
            LOG.error("Unlock via {}: state disk {} opened, but its node state {}: nothing acts on it", via.label(), uuid,
                    mismatch);
            unlocked.completeExceptionally(new IOException("the node state on state disk " + uuid + " " + mismatch));
            throw new UnlockRefused(UnlockRefused.Kind.BROKEN, "the state disk's node state does not match this node's"
                    + " TPM record; see the node's console");
        }
        Membership membership = via == Via.REJOIN ? Membership.rejoin(state, key) : Membership.recovery(state, key);
        unlocked.complete(provenRoleKey.map(membership::knowingJoinServiceRole).orElse(membership));
        return state;
    }
}
