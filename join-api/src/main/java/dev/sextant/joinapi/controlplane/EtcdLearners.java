package dev.sextant.joinapi.controlplane;

import dev.sextant.etcd.client.EtcdClient;
import dev.sextant.etcd.client.EtcdException;
import dev.sextant.etcd.client.EtcdMember;
import dev.sextant.etcd.members.EtcdMembership;
import dev.sextant.grpcsupport.Refusal;
import dev.sextant.joinapi.clusterstore.EtcdConnection;
import dev.sextant.joinapi.refusal.JoinRefusal;
import dev.sextant.proto.v1.EtcdPeer;
import io.grpc.Context;
import io.grpc.Deadline;
import io.grpc.Status;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Adds a joining control plane's etcd member as a learner ({@link EtcdMembership}), after its bindings:
 * its name is then the node name bound to its AK, so no machine can add, or replace, a member named after
 * another's node. A member already listed under the peer URL is this node's (a retried join); a started
 * member of the node's name under another peer URL came back without its data and is replaced. etcd
 * admits one learner at a time, so while another is listed the join is refused UNAVAILABLE naming it.
 * Each learner added is handed to {@link LearnerPromotion}.
 *
 * <p>Every change is decided on one member list. A member on that list may be removed before the change
 * reaches etcd (another join service replacing the same node, or removing a learner that never started;
 * a removal applied whose answer was lost), and etcd then answers NOT_FOUND ("member not found"): the
 * list is stale, not the join, so this service lists again and decides again, within the join's deadline,
 * rather than answer the node UNAVAILABLE for it to retry.
 */
@Singleton
public class EtcdLearners {
    private static final Logger LOG = LoggerFactory.getLogger(EtcdLearners.class);
    /**
     * How long etcd's "unhealthy cluster" refusal is retried: its strict reconfiguration check wants the
     * leader connected to every voter for five seconds, so a join right after a promotion waits that long.
     */
    static final Duration ADD_TIMEOUT = Duration.ofSeconds(10);
    /** Left of the caller's gRPC deadline for the rest of the join (the ticket) and its answer. */
    static final Duration ANSWER_MARGIN = Duration.ofSeconds(1);
    private static final Duration FIRST_PAUSE = Duration.ofMillis(50);

    /**
     * Sees each member list a change is decided on, before the change: nothing in production; a test
     * removes a listed member there, as a racing join service would.
     */
    @FunctionalInterface
    interface AfterList {
        AfterList NOTHING = members -> { };

        void listed(List<EtcdMember> members) throws InterruptedException;
    }

    /** The learner and etcd's {@code --initial-cluster} for it, with each other member's first client URL. */
    public record Learner(EtcdMember member, List<EtcdPeer> cluster) {
        public Learner {
            cluster = List.copyOf(cluster);
        }
    }

    private final EtcdConnection etcd;
    private final Clock clock;
    private final LearnerPromotion promotion;
    private final AfterList afterList;

    @Inject
    public EtcdLearners(EtcdConnection etcd, Clock clock, LearnerPromotion promotion) {
        this(etcd, clock, promotion, AfterList.NOTHING);
    }

    EtcdLearners(EtcdConnection etcd, Clock clock, LearnerPromotion promotion, AfterList afterList) {
        this.etcd = etcd;
        this.clock = clock;
        this.promotion = promotion;
        this.afterList = afterList;
    }

    public Learner add(EtcdPeer member) throws Refusal {
        EtcdClient client = etcd.client();
        EtcdMembership membership = new EtcdMembership(client, clock);
        try {
            EtcdMember learner = addOrFindListingAgain(client, membership, member.getName(), member.getPeerUrl(), deadline());
            // At once, not after the ticket: every learner this service adds is promoted or, never
            // started, removed, even one whose ticket then failed.
            promotion.promote(learner, member.getClientUrl().substring("https://".length()));
            return new Learner(learner, cluster(client, membership, member));
        } catch (EtcdException e) {
            if (e.getMessage().contains("too many learner")) {
                throw new Refusal(JoinRefusal.ETCD_LEARNER_PENDING, "another control plane's etcd member joined etcd as a"
                        + " learner just now; etcd admits one control plane at a time: retry later", e);
            }
            throw EtcdConnection.unavailable(e);
        } catch (IllegalStateException unstarted) {
            // initialCluster: a member added by another join service meanwhile has not started yet.
            throw new Refusal(JoinRefusal.ETCD_LEARNER_PENDING, "another control plane's etcd member is joining etcd;"
                    + " etcd admits one control plane at a time: retry later", unstarted);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Refusal(JoinRefusal.CLUSTER_STORE_UNAVAILABLE, "the join service is stopping; retry later", e);
        }
    }

    /**
     * {@link #addOrFind}, decided again on a fresh member list while etcd answers NOT_FOUND (a listed
     * member removed before this service's change reached it), until {@code deadline}.
     */
    private EtcdMember addOrFindListingAgain(EtcdClient client, EtcdMembership membership, String name, String peerUrl,
                                             Instant deadline) throws Refusal, InterruptedException {
        Duration pause = FIRST_PAUSE;
        for (int attempt = 1; ; attempt++) {
            try {
                return addOrFind(client, membership, name, peerUrl);
            } catch (EtcdException e) {
                if (e.code() != Status.Code.NOT_FOUND || !clock.instant().plus(pause).isBefore(deadline)) {
                    throw e;
                }
                LOG.info("etcd's members changed under control plane {}'s join (attempt {}: {}); listing them again",
                        name, attempt, e.getMessage());
            }
            Thread.sleep(pause.toMillis());
            pause = pause.multipliedBy(2);
        }
    }

    /** {@link #ADD_TIMEOUT} from now, or sooner: {@link #ANSWER_MARGIN} before the caller's own gRPC deadline. */
    private Instant deadline() {
        Instant own = clock.instant().plus(ADD_TIMEOUT);
        Deadline caller = Context.current().getDeadline();
        if (caller == null) {
            return own;
        }
        Instant theirs = clock.instant().plusMillis(caller.timeRemaining(TimeUnit.MILLISECONDS)).minus(ANSWER_MARGIN);
        return theirs.isBefore(own) ? theirs : own;
    }

    private EtcdMember addOrFind(EtcdClient client, EtcdMembership membership, String name, String peerUrl)
            throws Refusal, InterruptedException {
        List<EtcdMember> members = client.members();
        afterList.listed(members);
        Optional<EtcdMember> listed = members.stream().filter(m -> m.peerUrls().contains(peerUrl)).findFirst();
        if (listed.isPresent()) {
            if (listed.get().started() && !listed.get().name().equals(name)) {
                throw new Refusal(JoinRefusal.ETCD_PEER_URL_TAKEN, "etcd_member.peer_url " + peerUrl
                        + " is etcd member " + listed.get().name() + "'s, not this node's");
            }
            return listed.get();
        }
        // Not this node's own old member: a learner that came back without its data is replaced below.
        Optional<EtcdMember> joining = members.stream().filter(m -> m.learner() && !m.name().equals(name)).findFirst();
        if (joining.isPresent()) {
            EtcdMember other = joining.get();
            promotion.expireUnstarted(other);
            throw new Refusal(JoinRefusal.ETCD_LEARNER_PENDING, "another control plane's etcd member ("
                    + (other.started() ? other.name() : "not started yet") + ", " + other.peerUrls()
                    + ") is joining etcd as a learner; etcd admits one control plane at a time: retry later");
        }
        List<EtcdMember> old = members.stream().filter(m -> m.name().equals(name)).toList();
        if (!old.isEmpty()) {
            LOG.warn("etcd member {} is listed under another peer URL: it came back without its data, and is replaced by {}",
                    name, peerUrl);
            // Removed by the ids of this list (EtcdMembership.replace would list again): a member removed
            // meanwhile is NOT_FOUND here, and the join decides again on a fresh list.
            for (EtcdMember m : old) {
                client.remove(m.id());
            }
            return membership.addLearner(peerUrl, ADD_TIMEOUT);
        }
        EtcdMember added = membership.addLearner(peerUrl, ADD_TIMEOUT);
        LOG.info("etcd learner {} added for control plane {} at {}", added.hexId(), name, peerUrl);
        return added;
    }

    /** {@link EtcdMembership#initialCluster} as the ticket carries it: the new member without a client URL (it serves none yet). */
    private static List<EtcdPeer> cluster(EtcdClient client, EtcdMembership membership, EtcdPeer member) {
        Map<String, String> initial = membership.initialCluster(member.getName(), member.getPeerUrl());
        List<EtcdMember> members = client.members();
        List<EtcdPeer> cluster = new ArrayList<>();
        initial.forEach((name, peerUrl) -> cluster.add(EtcdPeer.newBuilder().setName(name).setPeerUrl(peerUrl)
                .setClientUrl(name.equals(member.getName()) ? "" : members.stream().filter(m -> m.name().equals(name))
                        .flatMap(m -> m.clientUrls().stream()).findFirst().orElse(""))
                .build()));
        return cluster;
    }
}
