package dev.sextant.etcd.duty;

import dev.sextant.etcd.client.CreateIfAbsentResult;
import dev.sextant.etcd.client.EtcdClient;
import dev.sextant.etcd.client.EtcdException;
import dev.sextant.etcd.client.KeyDeletionWatch;
import dev.sextant.etcd.client.Lease;
import dev.sextant.etcd.client.LeaseKeepAlive;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One holder at a time, among several processes, of a duty named by an etcd key: the key holds the
 * holder's name under a lease of one term, created only when absent. Each process runs one
 * {@code DutyHolder}; its thread tries to take the key every beat (a third of the term) while another
 * holds it, and while this one holds it renews the lease every beat over one keep-alive stream.
 *
 * <p><b>The work asks {@link #isHolder()} before each round</b>, rather than trusting a flag set by a
 * callback: {@code isHolder()} is computed when asked, from the lease's local deadline (the moment the
 * last renewal was sent, plus the TTL etcd answered), so it turns false at that deadline even when this
 * holder's thread is paused, slow or stuck in a call, and a process paused longer than the term never
 * wakes up believing it holds. etcd counts the same TTL from when its leader received the renewal, which
 * is later, so the local deadline falls before etcd can give the key to another.
 * The {@link DutyListener} is told of each tenure's start and end, in order, for logs and timelines.
 *
 * <p>A holder stops holding, before anything else (its listener is told after), when a renewal fails at
 * every endpoint within the time left, when etcd answers that the lease is gone, when its watch of its
 * own key sees the key deleted (a revocation behind its back), or when the deadline passed before it
 * could renew. It then revokes the lease if etcd can still be reached (so the key frees
 * at once) and becomes a candidate again.
 *
 * <p>A candidate refused because another holds the key watches the key for its deletion (from the
 * revision its attempt read) and tries again the moment it goes, besides trying every beat. So:
 * {@link #close()} resigns (revokes the lease, and etcd deletes the key) and another candidate holds
 * within about two round trips; a holder's death (no resignation) leaves the key until its lease
 * expires, at most one term after its last renewal, and the duty moves then, within etcd's expiry check
 * (every 500 ms) and two round trips. Without a watch (its stream failed), within one more beat.
 */
public final class DutyHolder implements AutoCloseable {
    private final EtcdClient client;
    private final DutyConfig config;
    private final DutyListener listener;
    private final AtomicReference<Tenure> tenure = new AtomicReference<>();
    /** A tenure the key's watch ended on a gRPC thread, for the holder's thread to report. */
    private final AtomicReference<Tenure> endedByWatch = new AtomicReference<>();
    private final Object transitions = new Object();
    private volatile boolean closed;
    private boolean keyDeleted; // guarded by transitions: a watch saw the key go, so try at once
    private KeyDeletionWatch watch; // the holder's thread's: of another's key, or of its own while it holds it
    private Thread thread;

    public DutyHolder(EtcdClient client, DutyConfig config, DutyListener listener) {
        this.client = client;
        this.config = config;
        this.listener = listener;
    }

    /** Starts this holder's thread: from now on it tries to take the duty, and keeps it while it can. */
    public synchronized DutyHolder start() {
        if (thread != null) {
            throw new IllegalStateException("the duty holder of " + config.key() + " was started already");
        }
        thread = new Thread(this::run, "duty " + config.key() + " (" + config.holderName() + ")");
        thread.setDaemon(true);
        thread.start();
        return this;
    }

    /**
     * Whether this process holds the duty now: a tenure began and its lease's local deadline has not
     * passed. Ask before each round of the duty's work; a round that runs long should ask
     * {@link #remaining()} too (or fence its writes with {@link Holding#createRevision()}).
     */
    public boolean isHolder() {
        Tenure t = tenure.get();
        return t != null && t.live(System.nanoTime());
    }

    /** The current tenure, while {@link #isHolder()}. */
    public Optional<Holding> holding() {
        Tenure t = tenure.get();
        return t != null && t.live(System.nanoTime()) ? Optional.of(t.holding) : Optional.empty();
    }

    /** How long this tenure lasts without another renewal; zero when this process does not hold the duty. */
    public Duration remaining() {
        Tenure t = tenure.get();
        long left = t == null ? 0 : t.deadline - System.nanoTime();
        return left > 0 ? Duration.ofNanos(left) : Duration.ZERO;
    }

    public DutyConfig config() {
        return config;
    }

    private void run() {
        while (!closed) {
            reportEndedByWatch();
            long waitNanos = tenure.get() == null ? tryToTake() : renew();
            long until = System.nanoTime() + waitNanos;
            synchronized (transitions) {
                // Not interrupted by close(): an interrupted etcd call would fail the resignation's revoke too.
                for (long left = waitNanos; left > 0 && !closed && !keyDeleted; left = until - System.nanoTime()) {
                    try {
                        TimeUnit.NANOSECONDS.timedWait(transitions, left);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }
        }
        stopWatching();
    }

    /**
     * Called by the holder's watch of its own key, on a gRPC thread: the key is gone while held (the lease
     * revoked or the key deleted behind its back). Stops holding at once; the holder's thread reports it.
     */
    private void ownKeyDeleted(Holding holding) {
        for (Tenure t = tenure.get(); t != null && t.holding.equals(holding); t = tenure.get()) {
            if (tenure.compareAndSet(t, null)) {
                endedByWatch.set(t); // its keep-alive is closed by the holder's thread: never block a gRPC thread
                break;
            }
        }
        keyDeleted();
    }

    private void reportEndedByWatch() {
        Tenure ended = endedByWatch.getAndSet(null);
        if (ended != null) {
            ended.keepAlive.close();
            stopWatching();
            listener.onLost(ended.holding, "its key was deleted while it held it (the lease revoked or the key removed behind its back)");
            revokeQuietly(ended.holding.leaseId());
        }
    }

    /** Called by the watch, on a gRPC thread: the key is gone (its holder resigned, or its lease expired). */
    private void keyDeleted() {
        synchronized (transitions) {
            keyDeleted = true;
            transitions.notifyAll();
        }
    }

    /**
     * Watches for the key's deletion after a refused attempt, so a candidate tries again the moment the
     * holder resigns or its lease expires instead of at its next beat. Best effort: the beat remains.
     */
    private void watchFrom(long readRevision) {
        if (watch != null && watch.active()) {
            return;
        }
        stopWatching();
        try {
            watch = client.watchDeletion(config.key(), readRevision + 1, this::keyDeleted);
        } catch (RuntimeException e) {
            watch = null; // no watch: the beat alone
        }
    }

    /**
     * Watches the held key from its creation on, so that a deletion behind this holder's back ends the tenure
     * at once rather than at the next renewal (best effort: a failed watch is opened again at a renewal).
     */
    private void watchOwnKey(Holding holding) {
        try {
            watch = client.watchDeletion(config.key(), holding.createRevision() + 1, () -> ownKeyDeleted(holding));
        } catch (RuntimeException e) {
            watch = null;
        }
    }

    private void stopWatching() {
        if (watch != null) {
            watch.close();
            watch = null;
        }
    }

    /** One attempt to take the key; the time until the next step. */
    private long tryToTake() {
        synchronized (transitions) {
            keyDeleted = false; // a deletion seen from now on wakes the wait after this attempt
        }
        long asked = System.nanoTime();
        Lease lease;
        try {
            lease = client.grantLease(config.term());
        } catch (EtcdException e) {
            attemptFailed(e);
            return beat();
        }
        CreateIfAbsentResult result;
        try {
            result = client.createIfAbsent(config.key(), config.holderName(), lease.id());
        } catch (EtcdException e) {
            attemptFailed(e);
            revokeQuietly(lease.id()); // frees the key too, if the transaction was applied and only its answer lost
            return beat();
        }
        long revision;
        if (result instanceof CreateIfAbsentResult.Created created) {
            revision = created.revision();
        } else if (result instanceof CreateIfAbsentResult.Present present && present.leaseId() == lease.id()) {
            revision = present.createRevision(); // our own write, applied by a first attempt whose answer was lost
        } else {
            revokeQuietly(lease.id()); // another holds it: our lease would only linger for a term
            watchFrom(((CreateIfAbsentResult.Present) result).readRevision());
            return beat();
        }
        Tenure taken = new Tenure(new Holding(config.key(), config.holderName(), lease.id(), revision),
                asked + TimeUnit.SECONDS.toNanos(lease.ttlSeconds()), client.keepAlive(lease.id()), lease.ttlSeconds());
        synchronized (transitions) {
            if (closed || !taken.live(System.nanoTime())) {
                // Closing, or the taking itself outlasted the term (a pause): never announce a tenure that is over.
                taken.keepAlive.close();
                revokeQuietly(lease.id());
                return beat();
            }
            tenure.set(taken);
        }
        stopWatching();
        watchOwnKey(taken.holding);
        listener.onTaken(taken.holding);
        return taken.nextRenewal - System.nanoTime();
    }

    /** One renewal of the held lease, or the end of the tenure; the time until the next step. */
    private long renew() {
        Tenure t = tenure.get();
        if (t == null) {
            return 0; // ended meanwhile (closed, or by the key's watch)
        }
        long asked = System.nanoTime();
        if (!t.live(asked)) {
            lose(t, "the lease's term ran out before it was renewed (this process or its etcd calls were held up"
                    + " longer than the term): the lease may have expired in etcd");
            return beat();
        }
        long ttl;
        try {
            ttl = t.keepAlive.renew(Duration.ofNanos(t.deadline - asked));
        } catch (EtcdException e) {
            lose(t, "its keep-alive failed: " + e.getMessage());
            return beat();
        }
        if (ttl <= 0) {
            lose(t, "etcd says the lease is gone (it expired or was revoked)");
            return beat();
        }
        Tenure renewed = t.renewed(asked + TimeUnit.SECONDS.toNanos(ttl), ttl);
        if (!tenure.compareAndSet(t, renewed)) {
            return beat(); // closed, or the key's watch ended the tenure, meanwhile
        }
        if (watch == null || !watch.active()) {
            stopWatching();
            watchOwnKey(t.holding);
        }
        return renewed.nextRenewal - System.nanoTime();
    }

    /** Ends a tenure: first this process stops holding, then its listener hears of it, then the lease is revoked if etcd answers. */
    private void lose(Tenure t, String reason) {
        if (!tenure.compareAndSet(t, null)) {
            return;
        }
        t.keepAlive.close();
        stopWatching();
        listener.onLost(t.holding, reason);
        revokeQuietly(t.holding.leaseId());
    }

    private void revokeQuietly(long leaseId) {
        try {
            client.revokeLease(leaseId);
        } catch (EtcdException e) {
            // Unreachable etcd: the lease expires by itself within its term.
            attemptFailed(e);
        }
    }

    private void attemptFailed(EtcdException e) {
        if (!closed) {
            listener.onAttemptFailed(e);
        }
    }

    private long beat() {
        return config.beat().toNanos();
    }

    /**
     * Resigns and stops: this process stops holding at once, then waits for its thread to finish the step
     * it is in (at most about a term plus a revoke's calls), then its listener hears "resigned" (on the
     * closing thread) and the lease is revoked, so that etcd deletes the key at once and another
     * candidate's watch wakes it to take the duty (or, without a watch, its next beat).
     */
    @Override
    public void close() {
        Tenure t;
        synchronized (transitions) {
            closed = true;
            t = tenure.getAndSet(null);
            transitions.notifyAll();
        }
        Thread running;
        synchronized (this) {
            running = thread;
        }
        if (running != null && running != Thread.currentThread()) {
            try {
                running.join(config.term().multipliedBy(2).toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (t != null) {
            t.keepAlive.close();
            listener.onLost(t.holding, "resigned: the holder was closed");
            revokeQuietly(t.holding.leaseId());
        } else {
            reportEndedByWatch();
        }
    }

    /** One tenure: what is held, until when (System.nanoTime), and when to renew next. */
    private static final class Tenure {
        final Holding holding;
        final long deadline;
        final long nextRenewal;
        final LeaseKeepAlive keepAlive;
        final long ttlSeconds;

        Tenure(Holding holding, long deadline, LeaseKeepAlive keepAlive, long ttlSeconds) {
            this.holding = holding;
            this.deadline = deadline;
            this.keepAlive = keepAlive;
            this.ttlSeconds = ttlSeconds;
            // A third of the TTL after the renewal was sent: two more fit before the deadline.
            this.nextRenewal = deadline - TimeUnit.SECONDS.toNanos(ttlSeconds) + TimeUnit.SECONDS.toNanos(ttlSeconds) / 3;
        }

        boolean live(long now) {
            return now - deadline < 0;
        }

        Tenure renewed(long newDeadline, long newTtlSeconds) {
            return new Tenure(holding, newDeadline, keepAlive, newTtlSeconds);
        }
    }
}
