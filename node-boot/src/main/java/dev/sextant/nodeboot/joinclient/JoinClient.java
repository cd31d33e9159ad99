package dev.sextant.nodeboot.joinclient;

import dev.sextant.keys.role.JoinServiceRoleKey;
import dev.sextant.housekeeping.retry.Backoff;
import dev.sextant.housekeeping.retry.Sleeper;
import com.google.protobuf.ByteString;
import dev.sextant.keys.member.MemberCertificate;
import dev.sextant.keys.member.MemberCredentials;
import dev.sextant.keys.member.MemberKey;
import dev.sextant.keys.member.MemberRole;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.ArrayList;
import dev.sextant.nodeboot.bringup.BringUp;
import dev.sextant.nodeboot.bringup.BringUpOutcome;
import dev.sextant.nodeboot.bringup.KubernetesPlan;
import dev.sextant.nodeboot.bringup.Membership;
import dev.sextant.nodeboot.deploy.ControlPlaneInput;
import dev.sextant.nodeboot.deploy.EtcdAdvertisedUrls;
import dev.sextant.diskcrypt.DiskCryptException;
import dev.sextant.housekeeping.discovery.ControlPlaneDiscovery;
import dev.sextant.housekeeping.discovery.Endpoint;
import dev.sextant.keys.KeyDerivation;
import dev.sextant.nodeboot.kubernetes.JoinSettings;
import dev.sextant.nodeboot.bringup.BootstrapStatus;
import dev.sextant.nodeboot.nodelock.NodeLock;
import dev.sextant.proto.v1.ControlPlaneJoin;
import dev.sextant.proto.v1.EtcdPeer;
import dev.sextant.proto.v1.IssueJoinTicketRequest;
import dev.sextant.proto.v1.IssueJoinTicketResponse;
import io.grpc.StatusRuntimeException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The join path of a fresh node: ask each known join service for a ticket (mutual aTLS: the node
 * attests, and verifies the service), back off with full jitter between rounds, check the first
 * ticket's fields and hand it, as a {@link Membership}, to the {@link BringUp} pipeline. Stops as
 * soon as another path holds the node lock, or a verified join service refuses this machine as revoked
 * ({@link MachineRevoked}: final for its AK), saying so once ({@link RevokedStatus}).
 */
public final class JoinClient {
    private static final Logger LOG = LoggerFactory.getLogger(JoinClient.class);

    /**
     * Everything the join path needs from this node.
     *
     * @param etcdMember a control plane's etcd member as it will advertise itself (the request names it); null for a worker
     * @param verifyEndpoint "host:port" of this node's VerifyService, for re-attestation; "" when unknown
     */
    public record Node(String name, boolean controlPlane, boolean kubernetesInstalled, FreshDisk freshDisk,
                       EtcdAdvertisedUrls etcdMember, String verifyEndpoint) {
        public Node {
            if (controlPlane != (etcdMember != null)) {
                throw new IllegalArgumentException("a control plane, and only a control plane, names its etcd member");
            }
            Objects.requireNonNull(verifyEndpoint, "verifyEndpoint (\"\" when unknown)");
        }

        public static Node worker(String name, boolean kubernetesInstalled, FreshDisk freshDisk) {
            return new Node(name, false, kubernetesInstalled, freshDisk, null, "");
        }

        public static Node controlPlane(String name, boolean kubernetesInstalled, FreshDisk freshDisk, EtcdAdvertisedUrls etcdMember) {
            return new Node(name, true, kubernetesInstalled, freshDisk, etcdMember, "");
        }

        /** This node, reporting {@code endpoint} as where its VerifyService answers. */
        public Node withVerifyEndpoint(String endpoint) {
            return new Node(name, controlPlane, kubernetesInstalled, freshDisk, etcdMember, endpoint);
        }
    }

    /**
     * A joining control plane runs its etcd member, KMS and join service as units of its own (node-local
     * services); beside Kubernetes it would need them as workloads and its member in Kubernetes' datastore.
     */
    static final String CONTROL_PLANE_WITH_KUBERNETES = "a control plane joining a cluster with Kubernetes is not supported yet";

    /**
     * The state disk of a node that is not a member yet. The join service derives the disk key from
     * the disk's UUID, so a blank disk is formatted (with a boot passphrase) before the first request.
     */
    @FunctionalInterface
    public interface FreshDisk {
        /**
         * Formats the disk if it is blank (once per boot) and returns its UUID; empty when the node
         * has no state disk (development node).
         */
        String prepare() throws DiskCryptException, InterruptedException;
    }

    private final Node node;
    private final ControlPlaneDiscovery discovery;
    private final JoinTransport transport;
    private final NodeLock lock;
    private final BringUp bringUp;
    private final Backoff backoff;
    private final Sleeper sleeper;
    private final AtomicBoolean stopRequested = new AtomicBoolean();
    /**
     * This node's discovery signing key: its public half goes into the join request (inside the
     * attested channel) and comes back certified; both halves then live on the encrypted state disk.
     */
    private final MemberKey memberKey = MemberKey.generate(new SecureRandom());

    private final RevokedStatus revokedStatus;

    public JoinClient(Node node, ControlPlaneDiscovery discovery, JoinTransport transport, NodeLock lock,
                      BringUp bringUp, Backoff backoff, Sleeper sleeper) {
        this(node, discovery, transport, lock, bringUp, backoff, sleeper, new RevokedStatus());
    }

    /** @param revokedStatus where the node says it was revoked (the console's stdout, or a test's stream) */
    public JoinClient(Node node, ControlPlaneDiscovery discovery, JoinTransport transport, NodeLock lock,
                      BringUp bringUp, Backoff backoff, Sleeper sleeper, RevokedStatus revokedStatus) {
        this.revokedStatus = Objects.requireNonNull(revokedStatus, "revokedStatus");
        this.node = node;
        this.discovery = discovery;
        this.transport = transport;
        this.lock = lock;
        this.bringUp = bringUp;
        this.backoff = backoff;
        this.sleeper = sleeper;
    }

    /** Asks the loop to end before its next round (a round in flight finishes). */
    public void stop() {
        stopRequested.set(true);
    }

    public JoinOutcome run() throws InterruptedException {
        if (node.controlPlane() && node.kubernetesInstalled()) {
            // Refused before asking: a ticket would bind this machine and add an etcd learner that never starts.
            LOG.error("The join path does not run: {}", CONTROL_PLANE_WITH_KUBERNETES);
            return new JoinOutcome.Stopped(CONTROL_PLANE_WITH_KUBERNETES);
        }
        for (int attempt = 0; ; attempt++) {
            if (lock.holder().isPresent()) {
                return JoinOutcome.lockedBy(lock.holder().get());
            }
            if (stopRequested.get()) {
                return new JoinOutcome.Stopped("stop requested");
            }
            JoinOutcome outcome = oneRound();
            if (outcome != null) {
                return outcome;
            }
            Duration wait = backoff.delay(attempt);
            LOG.info("No join ticket in round {}; next round in {} ms", attempt + 1, wait.toMillis());
            sleeper.sleep(wait);
        }
    }

    /** A ticket outcome, or null when no endpoint gave a usable one this round. */
    private JoinOutcome oneRound() throws InterruptedException {
        List<Endpoint> endpoints;
        IssueJoinTicketRequest request;
        try {
            endpoints = discovery.endpoints();
            // k3s makes its own kubelet credentials: no CSR (the field is kubeadm's).
            IssueJoinTicketRequest.Builder builder = IssueJoinTicketRequest.newBuilder().setDiskUuid(node.freshDisk().prepare())
                    .setNodeName(node.name()).setControlPlane(node.controlPlane())
                    .setDiscoveryPublicKey(ByteString.copyFrom(memberKey.publicKey()))
                    .setVerifyEndpoint(node.verifyEndpoint());
            if (node.controlPlane()) {
                builder.setEtcdMember(EtcdPeer.newBuilder().setName(node.name()).setPeerUrl(node.etcdMember().peerUrl())
                        .setClientUrl(node.etcdMember().clientUrl()));
            }
            request = builder.build();
        } catch (IOException | DiskCryptException e) {
            LOG.warn("Cannot prepare a join request: {}", e.getMessage());
            return null;
        }
        for (Endpoint endpoint : endpoints) {
            IssueJoinTicketResponse ticket;
            try {
                ticket = transport.issueJoinTicket(endpoint, request);
            } catch (MachineRevoked e) {
                // A machine whose disk was reset after its revocation asks to join afresh: the AK is what was revoked, so
                // no join service of the cluster will ever answer otherwise. Said once; the node stays fresh.
                LOG.error("Join service {} refused this machine as revoked ({}): {}. Revocation is final for this machine's"
                        + " TPM: the node asks no more; the machine may come back only as a new machine", endpoint, e.reason(),
                        e.getStatus().getDescription());
                revokedStatus.print(e.reason());
                return new JoinOutcome.Stopped("this machine was revoked (" + e.reason() + ")");
            } catch (StatusRuntimeException e) {
                LOG.warn("Join service {} refused or unreachable: {}", endpoint, e.getStatus());
                continue;
            }
            List<String> problems = new ArrayList<>(TicketCheck.problems(ticket, request, node.kubernetesInstalled()));
            Membership membership = problems.isEmpty() ? membership(ticket, problems) : null;
            if (membership == null) {
                LOG.warn("Join ticket from {} refused, nothing applied: {}", endpoint, String.join("; ", problems));
                continue;
            }
            LOG.info("Join ticket from {}", endpoint);
            return bringUp(endpoint, membership);
        }
        return null;
    }

    /**
     * The membership a well-formed ticket grants, or null with a problem added: the member
     * certificate must be the ticket's CA's, for this node's key, name, role and the ticket's cluster.
     */
    private Membership membership(IssueJoinTicketResponse ticket, List<String> problems) {
        byte[] clusterId = KeyDerivation.clusterId(ticket.getMeasurementSecret().toByteArray(),
                ticket.getMeasurementSalt().toByteArray());
        MemberCredentials member = new MemberCredentials(memberKey.privateKey(), ticket.getMemberCertificate().toByteArray(),
                ticket.getDiscoveryCaPublicKey().toByteArray());
        MemberCertificate certificate;
        try {
            certificate = member.check(Instant.now());
        } catch (IllegalArgumentException e) {
            problems.add("member_certificate: " + e.getMessage());
            return null;
        }
        MemberRole role = node.controlPlane() ? MemberRole.CONTROL_PLANE : MemberRole.WORKER;
        if (!certificate.nodeName().equals(node.name()) || certificate.role() != role || !certificate.sameCluster(clusterId)) {
            problems.add("member_certificate names " + certificate.nodeName() + " as " + certificate.role()
                    + " (or another cluster); this node is " + node.name() + " as " + role);
            return null;
        }
        byte[] diskKey = ticket.getStateDiskKey().toByteArray();
        byte[] discoveryKey = ticket.getDiscoveryKey().toByteArray();
        if (node.controlPlane()) {
            ControlPlaneInput input = controlPlaneInput(ticket);
            // A control plane holds the master secret: it derives the role key itself, whatever the ticket says.
            return Membership.joinControlPlane(node.name(), clusterId, diskKey, discoveryKey, input, member)
                    .knowingJoinServiceRole(JoinServiceRoleKey.of(input.masterSecret(), input.masterSalt()).publicKey());
        }
        KubernetesPlan kubernetes = ticket.hasK3S()
                ? new KubernetesPlan.Join(new JoinSettings(node.name(), ticket.getK3S().getServerUrl(), ticket.getK3S().getToken(), false))
                : new KubernetesPlan.None();
        Membership worker = Membership.join(BootstrapStatus.Role.WORKER, node.name(), clusterId, diskKey, discoveryKey, kubernetes, member);
        byte[] roleKey = ticket.getJoinServiceRoleKey().toByteArray();
        if (roleKey.length == 0) {
            LOG.warn("The join ticket names no join service role key (a join service without the master secret): this"
                    + " node's TPM records none, and its rejoins will check the join service's cluster mark only");
            return worker;
        }
        if (roleKey.length != 32) {
            problems.add("join_service_role_key is " + roleKey.length + " bytes, not a 32-byte Ed25519 public key");
            return null;
        }
        return worker.knowingJoinServiceRole(roleKey);
    }

    /** What a control plane's services are made from: its ticket's control-plane part (checked) and measurement salt. */
    private ControlPlaneInput controlPlaneInput(IssueJoinTicketResponse ticket) {
        ControlPlaneJoin cp = ticket.getControlPlane();
        Map<String, String> members = new LinkedHashMap<>();
        cp.getEtcdMembersList().forEach(m -> members.put(m.getName(), m.getPeerUrl()));
        return new ControlPlaneInput(cp.getMasterSecret().toByteArray(), cp.getMasterSalt().toByteArray(),
                ticket.getMeasurementSalt().toByteArray(), cp.getJoinMeasurements(), cp.getEkCaPem(), node.name(), members);
    }

    private JoinOutcome bringUp(Endpoint endpoint, Membership membership) throws InterruptedException {
        BringUpOutcome outcome = bringUp.run(membership, (step, detail) -> LOG.info("Join: {}: {}", step, detail));
        if (outcome instanceof BringUpOutcome.LockLost lost) {
            return JoinOutcome.lockedBy(lost.holder());
        }
        if (outcome instanceof BringUpOutcome.Failed failed) {
            return new JoinOutcome.Failed(failed.reason());
        }
        return new JoinOutcome.Joined(endpoint.toString(), (BringUpOutcome.Bootstrapped) outcome);
    }
}
