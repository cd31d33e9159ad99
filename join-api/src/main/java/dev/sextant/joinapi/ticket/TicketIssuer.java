package dev.sextant.joinapi.ticket;

import dev.sextant.joinapi.identity.AttestedCaller;
import dev.sextant.joinapi.identity.JoinServiceRole;
import dev.sextant.joinapi.input.InputChecks;
import dev.sextant.joinapi.plan.ClusterInfo;
import com.google.protobuf.ByteString;
import com.google.protobuf.UnsafeByteOperations;
import dev.sextant.grpcsupport.Refusal;
import dev.sextant.joinapi.binding.Bindings;
import dev.sextant.joinapi.binding.MachineClaim;
import dev.sextant.joinapi.controlplane.ControlPlaneAdmission;
import dev.sextant.joinapi.keyservice.JoinKeys;
import dev.sextant.joinapi.keyservice.KeyServiceClient;
import dev.sextant.joinapi.measurements.MeasurementsFloor;
import dev.sextant.joinapi.nodestate.AttestationWrite;
import dev.sextant.joinapi.nodestate.NodeStateStore;
import dev.sextant.joinapi.nodestate.Revocation;
import dev.sextant.joinapi.plan.KubernetesJoinPlan;
import dev.sextant.joinapi.refusal.JoinRefusal;
import dev.sextant.keys.KeyDerivation;
import dev.sextant.proto.v1.IssueJoinTicketRequest;
import dev.sextant.proto.v1.IssueJoinTicketResponse;
import dev.sextant.proto.v1.IssueRejoinTicketRequest;
import dev.sextant.proto.v1.IssueRejoinTicketResponse;
import jakarta.inject.Singleton;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Issues join and rejoin tickets to an attested machine (its AK name). The order is what keeps
 * failures clean: all input checks first (the Kubernetes plan's and a control plane's etcd member
 * too, and whether this service can admit a control plane at all), and the measurement set in force
 * against the cluster's floor; then the KMS keys (nothing
 * written yet, so a KMS outage leaves nothing behind); then the bindings, one transaction (the only
 * state that outlives a later failure, and only ever in favour of this AK; a refused claim writes
 * none of them, one whose answer etcd lost all or none); then the node's record, attested by this
 * ticket's handshake, written only while its AK is not revoked (the second revocation check, the one
 * a racing revocation cannot slip past); then a control plane's etcd learner, named
 * after the node just bound to this AK (a learner whose ticket fails is removed once it has not
 * started in time); then the plan's signing, with the bootstrap token last, so no token exists for a
 * ticket that was not returned. The member certificate is signed after the bindings too: it names
 * the node name and role just bound to this AK, and no other.
 */
@Singleton
public class TicketIssuer {
    private static final Logger LOG = LoggerFactory.getLogger(TicketIssuer.class);

    private final KeyServiceClient kms;
    private final Bindings bindings;
    private final KubernetesJoinPlan kubernetes;
    private final ClusterInfo cluster;
    private final MemberCertifier certifier;
    private final ControlPlaneAdmission controlPlanes;
    private final MeasurementsFloor floor;
    private final NodeStateStore nodes;
    private final JoinServiceRole role;

    public TicketIssuer(KeyServiceClient kms, Bindings bindings, KubernetesJoinPlan kubernetes, ClusterInfo cluster,
                        MemberCertifier certifier, ControlPlaneAdmission controlPlanes, MeasurementsFloor floor,
                        NodeStateStore nodes, JoinServiceRole role) {
        this.kms = kms;
        this.role = role;
        this.nodes = nodes;
        this.floor = floor;
        this.controlPlanes = controlPlanes;
        this.certifier = certifier;
        this.bindings = bindings;
        this.kubernetes = kubernetes;
        this.cluster = cluster;
    }

    public IssueJoinTicketResponse join(IssueJoinTicketRequest request, AttestedCaller caller) throws Refusal {
        byte[] akName = caller.akName();
        String uuid = InputChecks.diskUuid(request.getDiskUuid());
        String nodeName = InputChecks.nodeName(request.getNodeName());
        Optional<byte[]> memberKey = InputChecks.discoveryPublicKey(request.getDiscoveryPublicKey());
        KubernetesJoinPlan.Checked plan = kubernetes.check(request, nodeName);
        Optional<String> verifyEndpoint = InputChecks.verifyEndpoint(request.getVerifyEndpoint());
        refuseIfRevoked(akName);
        Optional<ControlPlaneAdmission.Candidate> controlPlane = controlPlanes.check(request, nodeName);
        floor.admitSetInForce();
        try {
            JoinKeys keys = kms.joinKeys(uuid);
            bindings.claim(MachineClaim.joining(akName, request.getControlPlane(), uuid, nodeName));
            // Right after the claim: the name is this AK's now, so the endpoint and the certified discovery key (what
            // the revocation list names if this machine is revoked) are kept for this machine's name only, with the
            // attestation this ticket rests on: the node is attested from its join, not from the first round. And
            // before anything is created for the ticket (a control plane's etcd learner, the bootstrap token): this
            // write is where a revocation that landed since the check refuses the ticket, so a join losing that race
            // leaves no token behind. A revocation after this write is ordered after the ticket, as one after a
            // returned ticket would be: the holder's next round cordons and taints the node.
            recordAttested(nodeName, akName, caller.imageVersion(), verifyEndpoint, memberKey);

            IssueJoinTicketResponse.Builder ticket = IssueJoinTicketResponse.newBuilder();
            if (controlPlane.isPresent()) {
                ticket.setControlPlane(controlPlanes.admit(controlPlane.get()));
            }
            ticket.setStateDiskKey(UnsafeByteOperations.unsafeWrap(keys.diskKey()))
                    .setMeasurementSalt(ByteString.copyFrom(cluster.measurementSalt()))
                    .setMeasurementSecret(UnsafeByteOperations.unsafeWrap(keys.measurementSecret()))
                    .setDiscoveryKey(UnsafeByteOperations.unsafeWrap(keys.discoveryKey()))
                    .setKubernetesVersion(cluster.kubernetesVersion())
                    .setDiscoveryCaPublicKey(ByteString.copyFrom(certifier.caPublicKey(keys.discoveryCaSeed())));
            // The node's TPM records it, and its rejoins then go to the cluster's control planes only.
            role.publicKey().ifPresent(key -> ticket.setJoinServiceRoleKey(ByteString.copyFrom(key)));
            if (memberKey.isPresent()) {
                byte[] clusterId = KeyDerivation.clusterId(keys.measurementSecret(), cluster.measurementSalt());
                ticket.setMemberCertificate(ByteString.copyFrom(certifier.certify(keys.discoveryCaSeed(), memberKey.get(),
                        nodeName, request.getControlPlane(), clusterId)));
            }
            Arrays.fill(keys.discoveryCaSeed(), (byte) 0);
            plan.complete(ticket);
            LOG.info("issued join ticket: node={} disk={} kubernetes={} controlPlane={}",
                    nodeName, uuid, ticket.getKubernetesCase(), request.getControlPlane());
            return ticket.build();
        } finally {
            controlPlane.ifPresent(ControlPlaneAdmission.Candidate::close); // the master secret, zeroed
        }
    }

    public IssueRejoinTicketResponse rejoin(IssueRejoinTicketRequest request, AttestedCaller caller) throws Refusal {
        byte[] akName = caller.akName();
        String uuid = InputChecks.diskUuid(request.getDiskUuid());
        Optional<String> verifyEndpoint = InputChecks.verifyEndpoint(request.getVerifyEndpoint());
        refuseIfRevoked(akName);
        floor.admitSetInForce();
        // A rebooted node presents the same AK (re-derived from the same primary seed), so only the
        // machine that owns this disk (it joined with it, or it is the init node) gets its key back.
        if (!bindings.ownsDisk(akName, uuid)) {
            throw new Refusal(JoinRefusal.DISK_NOT_BOUND, "disk " + uuid
                    + " is not bound to this machine's AK: a rejoin ticket goes only to the machine that owns the disk");
        }
        // The disk key alone: the rest of the node's membership is on the disk it opens, so no other
        // secret is fetched, let alone handed out.
        byte[] diskKey = kms.diskKey(uuid);
        // A rejoin is a full attestation of the machine (its image in the set in force, PCR 15 zero, its bound
        // AK): the node's record says so at once, as a round that attested it would, and with the image it
        // booted (after an upgrade, the new one), rather than the time and image of the last round before.
        Optional<String> nodeName = bindings.nodeName(akName);
        if (nodeName.isPresent()) {
            try {
                recordAttested(nodeName.get(), akName, caller.imageVersion(), verifyEndpoint, Optional.empty());
            } catch (Refusal | RuntimeException e) {
                Arrays.fill(diskKey, (byte) 0);
                throw e;
            }
        }
        LOG.info("issued rejoin ticket: disk={}", uuid);
        return IssueRejoinTicketResponse.newBuilder().setStateDiskKey(UnsafeByteOperations.unsafeWrap(diskKey)).build();
    }

    /**
     * Records {@code node} attested by this ticket's handshake, unless its AK was revoked since
     * {@link #refuseIfRevoked}: then the ticket is refused as if the revocation had come first, so a
     * revocation racing a ticket never leaves the node attested or holding a ticket.
     */
    private void recordAttested(String node, byte[] akName, String imageVersion, Optional<String> endpoint,
                                Optional<byte[]> memberKey) throws Refusal {
        String ak = HexFormat.of().formatHex(akName);
        if (nodes.recordAttested(node, ak, imageVersion, endpoint, memberKey) == AttestationWrite.REVOKED) {
            refuseIfRevoked(akName);
            throw new IllegalStateException("revoked/" + ak + " stopped a write and then was gone: a revocation is never deleted");
        }
    }

    /**
     * A revoked AK gets no ticket, join or rejoin: revocation is final for the machine. Checked before
     * anything is fetched or written, so a revoked machine learns nothing and squats nothing.
     */
    private void refuseIfRevoked(byte[] akName) throws Refusal {
        Optional<Revocation> revocation = nodes.revocation(HexFormat.of().formatHex(akName));
        if (revocation.isPresent()) {
            throw revocation.get().refusal();
        }
    }
}
