package dev.sextant.etcd.members;

import dev.sextant.etcd.client.EndpointStatus;
import dev.sextant.etcd.client.EtcdClient;
import dev.sextant.etcd.client.EtcdException;
import dev.sextant.etcd.client.EtcdMember;
import io.grpc.Status;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * How the cluster's membership changes, after etcd-manager's rule: a new member joins as a learner (it
 * receives the log but does not vote, so a slow or failed start cannot cost the cluster its quorum), is
 * promoted once it has caught up, and a member that came back without its data is removed by name and
 * added again, as a new learner. etcd 3.4 admits one learner at a time, so members join one by one.
 *
 * <p>The steps are safe to repeat: adding a peer URL that is listed already returns that member;
 * promoting a voting member returns it.
 */
public final class EtcdMembership {
    private static final Duration FIRST_BACKOFF = Duration.ofMillis(100);
    private static final Duration MAX_BACKOFF = Duration.ofSeconds(2);

    private final EtcdClient client;
    private final Clock clock;

    public EtcdMembership(EtcdClient client, Clock clock) {
        this.client = client;
        this.clock = clock;
    }

    /**
     * Adds a learner with this peer URL, or returns the member that has it already. etcd refuses to add
     * a member until the leader has been connected to every voting member for five seconds ("unhealthy
     * cluster", its strict reconfiguration check); that refusal is retried with back-off until {@code timeout}.
     */
    public EtcdMember addLearner(String peerUrl, Duration timeout) throws InterruptedException {
        Instant deadline = clock.instant().plus(timeout);
        Duration backoff = FIRST_BACKOFF;
        while (true) {
            Optional<EtcdMember> listed = withPeerUrl(peerUrl);
            if (listed.isPresent()) {
                return listed.get();
            }
            try {
                return client.addLearner(List.of(peerUrl));
            } catch (EtcdException e) {
                // An earlier attempt of this very call may have been applied before its answer was lost.
                Optional<EtcdMember> added = withPeerUrl(peerUrl);
                if (added.isPresent()) {
                    return added.get();
                }
                if (!e.getMessage().contains("unhealthy cluster") || !clock.instant().plus(backoff).isBefore(deadline)) {
                    throw e;
                }
            }
            backoff = pause(backoff);
        }
    }

    /**
     * The {@code --initial-cluster} of the member {@code name} joining with {@code peerUrl} (added
     * already): every member by name, the new one under {@code name}.
     *
     * @throws IllegalStateException when another member was added but never started: it has no name yet
     *                               and must be started or removed first
     */
    public Map<String, String> initialCluster(String name, String peerUrl) {
        Map<String, String> cluster = new LinkedHashMap<>();
        for (EtcdMember m : client.members()) {
            String member = m.peerUrls().contains(peerUrl) ? name : m.name();
            if (member.isEmpty()) {
                throw new IllegalStateException("etcd member " + m.hexId() + " (" + m.peerUrls()
                        + ") was added but never started: start or remove it before adding " + name);
            }
            m.peerUrls().forEach(url -> cluster.put(member, url));
        }
        return cluster;
    }

    /**
     * Waits until the learner {@code memberId}, serving at {@code learnerEndpoint}, has applied what
     * the leader had committed, then promotes it; retries with back-off (a learner still starting, etcd
     * saying it is not in sync yet) until {@code timeout}.
     *
     * @return the member, now voting
     * @throws IllegalStateException when it has not caught up within {@code timeout}, naming how far it got
     */
    public EtcdMember promoteWhenCaughtUp(long memberId, String learnerEndpoint, Duration timeout) throws InterruptedException {
        Instant deadline = clock.instant().plus(timeout);
        Duration backoff = FIRST_BACKOFF;
        String progress = "no answer from " + learnerEndpoint + " yet";
        while (true) {
            EtcdMember member = byId(memberId).orElseThrow(() -> new IllegalStateException(
                    "etcd member " + Long.toHexString(memberId) + " is not in the cluster: nothing to promote"));
            if (!member.learner()) {
                return member;
            }
            try {
                OptionalLong committed = leaderCommittedIndex(learnerEndpoint);
                if (committed.isEmpty()) {
                    progress = "the learner at " + learnerEndpoint + " knows no leader yet";
                } else {
                    EndpointStatus learner = client.status(learnerEndpoint);
                    progress = "applied " + learner.raftAppliedIndex() + " of the leader's " + committed.getAsLong();
                    if (learner.raftAppliedIndex() >= committed.getAsLong()) {
                        // The answer's member list, not a second read: etcd 3.4 lists members as the
                        // asked member knows them, and one that has not applied the promotion yet would
                        // send us to promote a voter.
                        Optional<EtcdMember> promoted = client.promote(memberId).stream()
                                .filter(m -> m.id() == memberId && !m.learner()).findFirst();
                        if (promoted.isPresent()) {
                            return promoted.get();
                        }
                    }
                }
            } catch (EtcdException e) {
                if (alreadyVoting(e)) {
                    progress = "promoted already, not yet listed as voting by every member";
                } else if (notReadyYet(e)) {
                    progress = e.getMessage();
                } else {
                    throw e;
                }
            }
            if (!clock.instant().plus(backoff).isBefore(deadline)) {
                throw new IllegalStateException("etcd learner " + Long.toHexString(memberId) + " at " + learnerEndpoint
                        + " has not caught up within " + timeout.toMillis() + " ms: " + progress);
            }
            backoff = pause(backoff);
        }
    }

    /** Sleeps {@code backoff}; returns the next one, doubled up to {@link #MAX_BACKOFF}. */
    private static Duration pause(Duration backoff) throws InterruptedException {
        Thread.sleep(backoff.toMillis());
        Duration next = backoff.multipliedBy(2);
        return next.compareTo(MAX_BACKOFF) > 0 ? MAX_BACKOFF : next;
    }

    /**
     * Removes the member {@code name} (one that lost its data cannot rejoin under its old identity) and
     * adds {@code peerUrl} again as a learner ({@link #addLearner}); start it with an empty data dir, {@code EXISTING} state and
     * {@link #initialCluster}, then {@link #promoteWhenCaughtUp}. A member already removed is just added.
     */
    public EtcdMember replace(String name, String peerUrl, Duration timeout) throws InterruptedException {
        for (EtcdMember m : client.members()) {
            if (m.name().equals(name) || (!m.started() && m.peerUrls().contains(peerUrl))) {
                client.remove(m.id());
            }
        }
        return addLearner(peerUrl, timeout);
    }

    /** What the leader had committed, asked at the leader the learner names; empty while the learner knows none. */
    private OptionalLong leaderCommittedIndex(String learnerEndpoint) {
        EndpointStatus learner = client.status(learnerEndpoint);
        Optional<EtcdMember> leader = learner.hasLeader() ? byId(learner.leaderId()) : Optional.empty();
        if (leader.isEmpty() || leader.get().clientEndpoints().isEmpty()) {
            return OptionalLong.empty();
        }
        return OptionalLong.of(client.status(leader.get().clientEndpoints().get(0)).raftIndex());
    }

    /** A learner still starting or catching up: unreachable, no leader known, or not in sync with it. */
    /** etcd's refusal to promote a member that votes already (a promotion whose answer was lost, or listed late). */
    private static boolean alreadyVoting(EtcdException e) {
        return e.code() == Status.Code.FAILED_PRECONDITION && e.getMessage().contains("can only promote a learner member")
                && !e.getMessage().contains("in sync with leader");
    }

    private static boolean notReadyYet(EtcdException e) {
        return e.code() == Status.Code.UNAVAILABLE || e.code() == Status.Code.DEADLINE_EXCEEDED
                || e.getMessage().contains("in sync with leader");
    }

    private Optional<EtcdMember> withPeerUrl(String peerUrl) {
        return client.members().stream().filter(m -> m.peerUrls().contains(peerUrl)).findFirst();
    }

    private Optional<EtcdMember> byId(long id) {
        return client.members().stream().filter(m -> m.id() == id).findFirst();
    }
}
