package dev.sextant.joinapi.controlplane;

import com.google.protobuf.ByteString;
import dev.sextant.grpcsupport.Refusal;
import dev.sextant.joinapi.input.InputChecks;
import dev.sextant.joinapi.refusal.JoinRefusal;
import dev.sextant.proto.v1.ControlPlaneJoin;
import dev.sextant.proto.v1.EtcdPeer;
import dev.sextant.proto.v1.IssueJoinTicketRequest;
import jakarta.inject.Singleton;
import java.util.Optional;

/**
 * A control plane's part of its join (docs/cluster-store.md, "A control plane's first join"), in two
 * steps around the ticket issuer's: {@link #check} with the other input checks, before anything is
 * derived, bound or added (the etcd member named as the contract says; a service with a master secret);
 * {@link #admit} after the bindings, which adds the learner and builds the ticket's {@link ControlPlaneJoin}.
 */
@Singleton
public class ControlPlaneAdmission {
    private final HandOverFiles files;
    private final EtcdLearners learners;

    /** A checked control plane's request: its etcd member and what it will be handed. Zeroes the master secret on close. */
    public record Candidate(EtcdPeer member, HandOver handOver) implements AutoCloseable {
        @Override
        public void close() {
            handOver.close();
        }
    }

    public ControlPlaneAdmission(HandOverFiles files, EtcdLearners learners) {
        this.files = files;
        this.learners = learners;
    }

    /** Empty for a worker (which must name no etcd member); a control plane's checked request otherwise. */
    public Optional<Candidate> check(IssueJoinTicketRequest request, String nodeName) throws Refusal {
        if (!request.getControlPlane()) {
            if (request.hasEtcdMember()) {
                throw new Refusal(JoinRefusal.INVALID_ETCD_MEMBER, "etcd_member is for a control plane: a worker runs no etcd member");
            }
            return Optional.empty();
        }
        if (!request.hasEtcdMember()) {
            throw new Refusal(JoinRefusal.INVALID_ETCD_MEMBER,
                    "a control plane's request names its etcd member (etcd_member: name, peer_url, client_url)");
        }
        EtcdPeer member = InputChecks.etcdMember(request.getEtcdMember(), nodeName);
        // Read now, not after the bindings: a service that cannot hand the secret over refuses before
        // anything is bound or added to etcd.
        return Optional.of(new Candidate(member, files.read()));
    }

    /** Adds the candidate's learner, after its bindings, and builds its ticket's part. */
    public ControlPlaneJoin admit(Candidate candidate) throws Refusal {
        EtcdLearners.Learner learner = learners.add(candidate.member());
        HandOver handOver = candidate.handOver();
        // Copies into the message: the candidate's own bytes are zeroed when it closes, before the answer
        // is serialized; the copies live as long as the answer.
        return ControlPlaneJoin.newBuilder()
                .setMasterSecret(ByteString.copyFrom(handOver.masterSecret()))
                .setMasterSalt(ByteString.copyFrom(handOver.masterSalt()))
                .addAllEtcdMembers(learner.cluster())
                .setJoinMeasurements(handOver.measurements())
                .setEkCaPem(handOver.ekCaPem())
                .build();
    }
}
