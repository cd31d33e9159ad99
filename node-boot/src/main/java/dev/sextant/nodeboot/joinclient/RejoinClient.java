package dev.sextant.nodeboot.joinclient;

import dev.sextant.nodeboot.bringup.Via;
import dev.sextant.housekeeping.discovery.ControlPlaneDiscovery;
import dev.sextant.housekeeping.discovery.Endpoint;
import dev.sextant.housekeeping.retry.Backoff;
import dev.sextant.housekeeping.retry.Sleeper;
import dev.sextant.nodeboot.unlock.DiskUnlocker;
import dev.sextant.nodeboot.unlock.UnlockRefused;
import dev.sextant.proto.v1.IssueRejoinTicketRequest;
import dev.sextant.proto.v1.IssueRejoinTicketResponse;
import io.grpc.StatusRuntimeException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The rejoin path of a rebooted node, beside the join path ({@link JoinClient}) because both ask
 * the join service: it asks the services the node knows for its disk key (IssueRejoinTicket over
 * mutual aTLS), round after round with full-jitter backoff, until a key opens the disk
 * ({@link DiskUnlocker}) or the disk stops waiting (recovery won). A service that is down,
 * refuses, or hands out a key that does not open the disk costs one round: the node never formats
 * and never gives up, with one exception: a verified join service saying this machine was revoked
 * ({@link MachineRevoked}). Revocation is final for the machine's AK, so the node stops asking, says so
 * once in the log and in a status line ({@link RevokedStatus}), and stays locked: its disk stays closed.
 * A key is never dropped because the disk was busy trying another: BUSY says
 * nothing about the key, so the same key is offered again.
 */
public final class RejoinClient {
    private static final Logger LOG = LoggerFactory.getLogger(RejoinClient.class);

    private final ControlPlaneDiscovery services;
    private final RejoinTransport transport;
    private final DiskUnlocker unlocker;
    private final Backoff backoff;
    private final Sleeper sleeper;
    private final String verifyEndpoint;
    private final RevokedStatus revokedStatus;

    /** What a round ended with. */
    private enum Round { OPENED, NO_KEY, REVOKED }

    public RejoinClient(ControlPlaneDiscovery services, RejoinTransport transport, DiskUnlocker unlocker, Backoff backoff,
                        Sleeper sleeper) {
        this(services, transport, unlocker, backoff, sleeper, "");
    }

    /** @param verifyEndpoint "host:port" of this node's VerifyService, sent with every request; "" when unknown */
    public RejoinClient(ControlPlaneDiscovery services, RejoinTransport transport, DiskUnlocker unlocker, Backoff backoff,
                        Sleeper sleeper, String verifyEndpoint) {
        this(services, transport, unlocker, backoff, sleeper, verifyEndpoint, new RevokedStatus());
    }

    /** @param revokedStatus where the node says it was revoked (the console's stdout, or a test's stream) */
    public RejoinClient(ControlPlaneDiscovery services, RejoinTransport transport, DiskUnlocker unlocker, Backoff backoff,
                        Sleeper sleeper, String verifyEndpoint, RevokedStatus revokedStatus) {
        this.revokedStatus = Objects.requireNonNull(revokedStatus, "revokedStatus");
        this.verifyEndpoint = Objects.requireNonNull(verifyEndpoint, "verifyEndpoint");
        this.services = services;
        this.transport = transport;
        this.unlocker = unlocker;
        this.backoff = backoff;
        this.sleeper = sleeper;
    }

    /**
     * Runs until the disk no longer waits, or a verified join service said this machine was revoked;
     * returns true when this client's key opened the disk.
     */
    public boolean run(String diskUuid) throws InterruptedException {
        for (int attempt = 0; unlocker.waitingFor() != null; attempt++) {
            Round round = oneRound(diskUuid);
            if (round == Round.OPENED) {
                return true;
            }
            if (round == Round.REVOKED) {
                return false;
            }
            Duration wait = backoff.delay(attempt);
            LOG.info("Rejoin: no key for disk {} in round {}; next round in {} ms", diskUuid, attempt + 1, wait.toMillis());
            sleeper.sleep(wait);
        }
        return false;
    }

    private Round oneRound(String diskUuid) throws InterruptedException {
        List<Endpoint> endpoints;
        try {
            endpoints = services.endpoints();
        } catch (IOException e) {
            LOG.warn("Rejoin: cannot list join services: {}", e.getMessage());
            return Round.NO_KEY;
        }
        IssueRejoinTicketRequest request = IssueRejoinTicketRequest.newBuilder().setDiskUuid(diskUuid)
                .setVerifyEndpoint(verifyEndpoint).build();
        for (Endpoint endpoint : endpoints) {
            if (unlocker.waitingFor() == null) {
                return Round.NO_KEY;
            }
            RejoinTicket answer;
            try {
                answer = transport.rejoinTicket(endpoint, request);
            } catch (MachineRevoked e) {
                // Once, and then no more: every other service of the cluster would say the same, for good.
                LOG.error("Rejoin: join service {} refused this machine as revoked ({}): {}. Revocation is final for this"
                        + " machine's TPM: the node asks no more and stays locked, its disk closed; the machine may come"
                        + " back only as a new machine", endpoint, e.reason(), e.getStatus().getDescription());
                revokedStatus.print(e.reason());
                return Round.REVOKED;
            } catch (StatusRuntimeException e) {
                LOG.warn("Rejoin: join service {} refused or unreachable: {}", endpoint, e.getStatus());
                continue;
            }
            IssueRejoinTicketResponse ticket = answer.response();
            List<String> problems = TicketCheck.problems(ticket);
            if (!problems.isEmpty()) {
                LOG.warn("Rejoin ticket from {} refused, nothing applied: {}", endpoint, String.join("; ", problems));
                continue;
            }
            if (offer(diskUuid, ticket.getStateDiskKey().toByteArray(), answer.provenRoleKey(), endpoint)) {
                return Round.OPENED;
            }
        }
        return Round.NO_KEY;
    }

    /**
     * Offers one ticket's key until the unlocker answers about the key itself (or the disk stops waiting),
     * with the role key the same call's service proved: the membership carries it only if this key opens.
     */
    private boolean offer(String diskUuid, byte[] key, Optional<byte[]> provenRoleKey, Endpoint endpoint)
            throws InterruptedException {
        while (true) {
            try {
                unlocker.open(diskUuid, key, Via.REJOIN, provenRoleKey);
                LOG.info("Rejoin: disk {} opened with the key from {}", diskUuid, endpoint);
                return true;
            } catch (UnlockRefused e) {
                if (e.kind() != UnlockRefused.Kind.BUSY) {
                    LOG.warn("Rejoin: the key from {} was refused: {}", endpoint, e.getMessage());
                    return false;
                }
                LOG.info("Rejoin: the disk is busy with another key; the key from {} is offered again", endpoint);
                sleeper.sleep(backoff.delay(0));
            }
        }
    }
}
