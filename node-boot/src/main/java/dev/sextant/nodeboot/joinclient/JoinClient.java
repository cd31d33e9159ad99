package dev.sextant.nodeboot.joinclient;

import com.google.protobuf.ByteString;
import dev.sextant.nodeboot.diskcrypt.DiskCryptException;
import dev.sextant.nodeboot.discovery.ControlPlaneDiscovery;
import dev.sextant.nodeboot.discovery.Endpoint;
import dev.sextant.nodeboot.failure.FailureHandler;
import dev.sextant.nodeboot.keys.ClusterKeys;
import dev.sextant.nodeboot.kubernetes.DriverResult;
import dev.sextant.nodeboot.nodelock.LockHolder;
import dev.sextant.nodeboot.nodelock.LockResult;
import dev.sextant.nodeboot.nodelock.NodeLock;
import dev.sextant.proto.v1.IssueJoinTicketRequest;
import dev.sextant.proto.v1.IssueJoinTicketResponse;
import io.grpc.StatusRuntimeException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.security.GeneralSecurityException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The join path: ask each discovered join service for a ticket (the node attests in the aTLS
 * handshake), back off with full jitter between rounds, and on the first ticket take the node
 * lock and apply it. Stops as soon as the init path holds the lock.
 */
public final class JoinClient {
    private static final Logger LOG = LoggerFactory.getLogger(JoinClient.class);

    /** Everything the join path needs from this node. */
    public record Node(String name, boolean controlPlane, DiskUuid diskUuid) {
    }

    @FunctionalInterface
    public interface DiskUuid {
        String read() throws DiskCryptException, InterruptedException;
    }

    private final Node node;
    private final ControlPlaneDiscovery discovery;
    private final JoinTransport transport;
    private final NodeLock lock;
    private final TicketApplier applier;
    private final FailureHandler failure;
    private final Backoff backoff;
    private final Sleeper sleeper;
    private final AtomicBoolean stopRequested = new AtomicBoolean();

    public JoinClient(Node node, ControlPlaneDiscovery discovery, JoinTransport transport, NodeLock lock,
                      TicketApplier applier, FailureHandler failure, Backoff backoff, Sleeper sleeper) {
        this.node = node;
        this.discovery = discovery;
        this.transport = transport;
        this.lock = lock;
        this.applier = applier;
        this.failure = failure;
        this.backoff = backoff;
        this.sleeper = sleeper;
    }

    /** Asks the loop to end before its next round (a round in flight finishes). */
    public void stop() {
        stopRequested.set(true);
    }

    public JoinOutcome run() throws InterruptedException {
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

    /** A ticket outcome, or null when no endpoint gave one this round. */
    private JoinOutcome oneRound() throws InterruptedException {
        List<Endpoint> endpoints;
        KubeletCredentials kubelet;
        IssueJoinTicketRequest request;
        try {
            endpoints = discovery.endpoints();
            kubelet = KubeletCredentials.create(node.name());
            request = IssueJoinTicketRequest.newBuilder().setDiskUuid(node.diskUuid().read()).setNodeName(node.name())
                    .setKubeletCsr(ByteString.copyFrom(kubelet.csrDer())).setControlPlane(node.controlPlane()).build();
        } catch (IOException | GeneralSecurityException | DiskCryptException e) {
            LOG.warn("Cannot prepare a join request: {}", e.getMessage());
            return null;
        }
        for (Endpoint endpoint : endpoints) {
            try {
                IssueJoinTicketResponse ticket = transport.issueJoinTicket(endpoint, request);
                LOG.info("Join ticket from {}", endpoint);
                return applyTicket(endpoint, ticket, kubelet);
            } catch (StatusRuntimeException e) {
                LOG.warn("Join service {} refused or unreachable: {}", endpoint, e.getStatus());
            }
        }
        return null;
    }

    private JoinOutcome applyTicket(Endpoint endpoint, IssueJoinTicketResponse ticket, KubeletCredentials kubelet)
            throws InterruptedException {
        byte[] clusterId = ClusterKeys.clusterId(ticket.getMeasurementSecret().toByteArray(),
                ticket.getMeasurementSalt().toByteArray());
        try {
            LockResult locked = lock.tryLockOnce(LockHolder.JOIN, clusterId);
            if (locked instanceof LockResult.AlreadyLocked already) {
                return JoinOutcome.lockedBy(already.by());
            }
            DriverResult kubernetes = applier.apply(ticket, node.name(), kubelet);
            if (kubernetes instanceof DriverResult.Failed failed) {
                return fatal(failed.message());
            }
            return new JoinOutcome.Joined(endpoint.toString(), kubernetes);
        } catch (IOException | DiskCryptException e) {
            return fatal(e.getMessage());
        } catch (RuntimeException e) {
            // Past the lock even a bug must end in reset and reboot, not a half-joined node.
            return fatal("unexpected " + e);
        }
    }

    private JoinOutcome fatal(String reason) {
        failure.fatal("join: " + reason);
        return new JoinOutcome.Failed(reason);
    }
}
