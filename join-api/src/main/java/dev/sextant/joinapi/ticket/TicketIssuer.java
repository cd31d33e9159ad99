package dev.sextant.joinapi.ticket;

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
 * none of them, one whose answer etcd lost all or none); then a control plane's etcd learner, named
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

    public TicketIssuer(KeyServiceClient kms, Bindings bindings, KubernetesJoinPlan kubernetes, ClusterInfo cluster,
                        MemberCertifier certifier, ControlPlaneAdmission controlPlanes, MeasurementsFloor floor,
                        NodeStateStore nodes) {
        this.kms = kms;
        this.nodes = nodes;
        this.floor = floor;
        this.controlPlanes = controlPlanes;
        this.certifier = certifier;
        this.bindings = bindings;
        this.kubernetes = kubernetes;
        this.cluster = cluster;
    }

    public IssueJoinTicketResponse join(IssueJoinTicketRequest request, byte[] akName) throws Refusal {
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
            if (memberKey.isPresent()) {
                byte[] clusterId = KeyDerivation.clusterId(keys.measurementSecret(), cluster.measurementSalt());
                ticket.setMemberCertificate(ByteString.copyFrom(certifier.certify(keys.discoveryCaSeed(), memberKey.get(),
                        nodeName, request.getControlPlane(), clusterId)));
            }
            Arrays.fill(keys.discoveryCaSeed(), (byte) 0);
            plan.complete(ticket);
            if (verifyEndpoint.isPresent()) {
                // After the claim: the name is this AK's now, so the endpoint is kept for this machine's name only.
                nodes.recordEndpoint(nodeName, verifyEndpoint.get());
            }
            LOG.info("issued join ticket: node={} disk={} kubernetes={} controlPlane={}",
                    nodeName, uuid, ticket.getKubernetesCase(), request.getControlPlane());
            return ticket.build();
        } finally {
            controlPlane.ifPresent(ControlPlaneAdmission.Candidate::close); // the master secret, zeroed
        }
    }

    public IssueRejoinTicketResponse rejoin(IssueRejoinTicketRequest request, byte[] akName) throws Refusal {
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
        if (verifyEndpoint.isPresent()) {
            Optional<String> nodeName = bindings.nodeName(akName);
            if (nodeName.isPresent()) {
                nodes.recordEndpoint(nodeName.get(), verifyEndpoint.get());
            }
        }
        LOG.info("issued rejoin ticket: disk={}", uuid);
        return IssueRejoinTicketResponse.newBuilder().setStateDiskKey(UnsafeByteOperations.unsafeWrap(diskKey)).build();
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
