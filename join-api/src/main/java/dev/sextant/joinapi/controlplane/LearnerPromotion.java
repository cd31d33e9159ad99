package dev.sextant.joinapi.controlplane;

import dev.sextant.etcd.client.EtcdClient;
import dev.sextant.etcd.client.EtcdException;
import dev.sextant.etcd.client.EtcdMember;
import dev.sextant.etcd.members.EtcdMembership;
import dev.sextant.grpcsupport.Refusal;
import dev.sextant.joinapi.clusterstore.EtcdConnection;
import io.grpc.Status;
import jakarta.annotation.PreDestroy;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Promotes the learners this join service added, in the background, once each has caught up
 * ({@link EtcdMembership#promoteWhenCaughtUp}). A learner that never started within the timeout is
 * removed: etcd admits one learner at a time, so a control plane that got its ticket and never came up
 * would otherwise block every later control plane's join. One that started but has not caught up stays
 * a learner, named in the log (removing it would throw away a member that is working).
 */
@Singleton
public class LearnerPromotion implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(LearnerPromotion.class);
    /** Long enough for a control plane to boot with its ticket, unlock its disk and start etcd. */
    public static final Duration TIMEOUT = Duration.ofMinutes(5);

    private final EtcdConnection etcd;
    private final Clock clock;
    private final Duration timeout;
    private final ExecutorService executor = Executors.newCachedThreadPool(task -> {
        Thread thread = new Thread(task, "etcd-learner-promotion");
        thread.setDaemon(true);
        return thread;
    });
    /** Learners being promoted or expired: a retried join does not start a second task for the same member. */
    private final Set<Long> promoting = ConcurrentHashMap.newKeySet();

    @Inject
    public LearnerPromotion(EtcdConnection etcd, Clock clock) {
        this(etcd, clock, TIMEOUT);
    }

    public LearnerPromotion(EtcdConnection etcd, Clock clock, Duration timeout) {
        this.etcd = etcd;
        this.clock = clock;
        this.timeout = timeout;
    }

    /** Starts promoting {@code learner}, which serves clients at {@code clientEndpoint} (host:port) once started. */
    public void promote(EtcdMember learner, String clientEndpoint) {
        if (learner.learner()) {
            submit(learner, "promoting", client -> promoteOrRemove(client, learner, clientEndpoint));
        }
    }

    /**
     * Removes {@code learner}, found pending by a join it blocks, if it has still not started after the
     * timeout: the join service that added it may have stopped before it could (its promotion ends with
     * it), and the learner would otherwise block every later control plane. One this service promotes
     * already is left to that.
     */
    public void expireUnstarted(EtcdMember learner) {
        if (!learner.started()) {
            submit(learner, "removing", client -> {
                Thread.sleep(timeout.toMillis());
                giveUp(client, learner, Optional.empty()); // started meanwhile: its own join service promotes it
            });
        }
    }

    @FunctionalInterface
    private interface Task {
        void run(EtcdClient client) throws InterruptedException;
    }

    /** Runs {@code task} in the background unless one runs for this learner already. */
    private void submit(EtcdMember learner, String doing, Task task) {
        if (!promoting.add(learner.id())) {
            return;
        }
        executor.execute(() -> {
            try {
                task.run(etcd.client());
            } catch (EtcdException e) {
                if (e.code() == Status.Code.NOT_FOUND) {
                    // Removed between this service's list and its promote (or remove): by the join service
                    // that replaced its node, or one that expired it. Nothing is left to promote.
                    LOG.info("etcd learner {} ({}) was removed by another join service while this one was {} it",
                            learner.hexId(), learner.peerUrls(), doing);
                } else if (executor.isShutdown()) {
                    LOG.info("the join service stopped while {} etcd learner {} ({})", doing, learner.hexId(), learner.peerUrls());
                } else {
                    LOG.warn("{} etcd learner {} ({}) failed; it stays a learner", doing, learner.hexId(), learner.peerUrls(), e);
                }
            } catch (Refusal e) {
                if (executor.isShutdown()) {
                    LOG.info("the join service stopped while {} etcd learner {} ({})", doing, learner.hexId(), learner.peerUrls());
                } else {
                    LOG.warn("{} etcd learner {} ({}) failed; it stays a learner", doing, learner.hexId(), learner.peerUrls(), e);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt(); // the service is stopping
            } finally {
                promoting.remove(learner.id());
            }
        });
    }

    private void promoteOrRemove(EtcdClient client, EtcdMember learner, String clientEndpoint) throws InterruptedException {
        Instant start = clock.instant();
        try {
            EtcdMember voter = new EtcdMembership(client, clock).promoteWhenCaughtUp(learner.id(), clientEndpoint, timeout);
            LOG.info("etcd member {} ({}) caught up and is a voting member now, {} ms after its join",
                    voter.name(), voter.hexId(), Duration.between(start, clock.instant()).toMillis());
        } catch (IllegalStateException notCaughtUp) {
            giveUp(client, learner, Optional.of(notCaughtUp.getMessage()));
        }
    }

    /** Removes the learner if it never started; one that started is named with {@code notCaughtUp}, if given. */
    private void giveUp(EtcdClient client, EtcdMember learner, Optional<String> notCaughtUp) {
        Optional<EtcdMember> now = client.members().stream().filter(m -> m.id() == learner.id()).findFirst();
        if (now.isEmpty()) {
            LOG.info("etcd learner {} ({}) was removed before it was promoted", learner.hexId(), learner.peerUrls());
        } else if (!now.get().started()) {
            client.remove(learner.id());
            LOG.warn("etcd learner {} ({}) did not start within {} s and is removed, so the next control plane can join",
                    learner.hexId(), learner.peerUrls(), timeout.toSeconds());
        } else {
            notCaughtUp.ifPresent(why -> LOG.warn("etcd learner {} ({}) started but did not catch up; it stays a learner: {}",
                    now.get().name(), learner.hexId(), why));
        }
    }

    @Override
    @PreDestroy
    public void close() {
        executor.shutdownNow();
    }
}
