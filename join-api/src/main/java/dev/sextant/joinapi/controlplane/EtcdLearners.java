package dev.sextant.joinapi.controlplane;

import dev.sextant.etcd.client.EtcdClient;
import dev.sextant.etcd.client.EtcdException;
import dev.sextant.etcd.client.EtcdMember;
import dev.sextant.etcd.members.EtcdMembership;
import dev.sextant.grpcsupport.Refusal;
import dev.sextant.joinapi.clusterstore.EtcdConnection;
import dev.sextant.joinapi.refusal.JoinRefusal;
import dev.sextant.proto.v1.EtcdPeer;
import jakarta.inject.Singleton;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Adds a joining control plane's etcd member as a learner ({@link EtcdMembership}), after its bindings:
 * its name is then the node name bound to its AK, so no machine can add, or replace, a member named after
 * another's node. A member already listed under the peer URL is this node's (a retried join); a started
 * member of the node's name under another peer URL came back without its data and is replaced. etcd
 * admits one learner at a time, so while another is listed the join is refused UNAVAILABLE naming it.
 * Each learner added is handed to {@link LearnerPromotion}.
 */
@Singleton
public class EtcdLearners {
    private static final Logger LOG = LoggerFactory.getLogger(EtcdLearners.class);
    /**
     * How long etcd's "unhealthy cluster" refusal is retried: its strict reconfiguration check wants the
     * leader connected to every voter for five seconds, so a join right after a promotion waits that long.
     */
    static final Duration ADD_TIMEOUT = Duration.ofSeconds(10);

    /** The learner and etcd's {@code --initial-cluster} for it, with each other member's first client URL. */
    public record Learner(EtcdMember member, List<EtcdPeer> cluster) {
        public Learner {
            cluster = List.copyOf(cluster);
        }
    }

    private final EtcdConnection etcd;
    private final Clock clock;
    private final LearnerPromotion promotion;

    public EtcdLearners(EtcdConnection etcd, Clock clock, LearnerPromotion promotion) {
        this.etcd = etcd;
        this.clock = clock;
        this.promotion = promotion;
    }

    public Learner add(EtcdPeer member) throws Refusal {
        EtcdClient client = etcd.client();
        EtcdMembership membership = new EtcdMembership(client, clock);
        try {
            EtcdMember learner = addOrFind(client, membership, member.getName(), member.getPeerUrl());
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

    private EtcdMember addOrFind(EtcdClient client, EtcdMembership membership, String name, String peerUrl)
            throws Refusal, InterruptedException {
        List<EtcdMember> members = client.members();
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
        if (members.stream().anyMatch(m -> m.name().equals(name))) {
            LOG.warn("etcd member {} is listed under another peer URL: it came back without its data, and is replaced by {}",
                    name, peerUrl);
            return membership.replace(name, peerUrl, ADD_TIMEOUT);
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
