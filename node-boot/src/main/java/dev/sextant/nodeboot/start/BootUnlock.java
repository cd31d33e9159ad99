package dev.sextant.nodeboot.start;

import dev.sextant.attestation.issue.Attester;
import dev.sextant.nodeboot.bringup.Membership;
import dev.sextant.nodeboot.joinclient.RejoinClient;
import dev.sextant.nodeboot.joinclient.RejoinTransport;
import dev.sextant.nodeboot.rememberdisk.RememberedDisk;
import dev.sextant.housekeeping.discovery.ControlPlaneDiscovery;
import dev.sextant.housekeeping.retry.Backoff;
import dev.sextant.housekeeping.retry.Sleeper;
import dev.sextant.nodeboot.unlock.DiskUnlocker;
import dev.sextant.nodeboot.unlock.RecoveryEndpoint;
import dev.sextant.nodeboot.unlock.RecoveryServer;
import dev.sextant.nodeboot.unlock.RecoverySettings;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.concurrent.ExecutionException;

/**
 * Unlock at boot (the reference's disk-mapper, notes §1.9): a node whose state disk holds an
 * initialized cluster disk races rejoin against recovery (control planes only); the first key that
 * opens the disk wins and the other stops. Nothing else touches the disk meanwhile. It sits beside
 * {@link BootStarter}, which chooses this way, above the two it races: the {@link RejoinClient}
 * asks the join service like the join path does, the {@link RecoveryServer} waits for the operator.
 */
public final class BootUnlock {
    private static final Logger LOG = LoggerFactory.getLogger(BootUnlock.class);

    private final DiskUnlocker unlocker;
    private final ControlPlaneDiscovery joinServices;
    private final RejoinTransport transport;
    private final Attester attester;
    private final RecoverySettings recovery;
    private final Backoff backoff;
    private final Sleeper sleeper;
    private String verifyEndpoint = "";

    /** Reports {@code endpoint} ("host:port" of this node's VerifyService) with each rejoin request; "" (the default): none. */
    public BootUnlock reportingVerifyEndpoint(String endpoint) {
        this.verifyEndpoint = java.util.Objects.requireNonNull(endpoint, "endpoint");
        return this;
    }

    public BootUnlock(DiskUnlocker unlocker, ControlPlaneDiscovery joinServices, RejoinTransport transport, Attester attester,
                      RecoverySettings recovery, Backoff backoff, Sleeper sleeper) {
        this.unlocker = unlocker;
        this.joinServices = joinServices;
        this.transport = transport;
        this.attester = attester;
        this.recovery = recovery;
        this.backoff = backoff;
        this.sleeper = sleeper;
    }

    /** Waits as long as it takes for the disk's key; returns the membership read back from the disk. */
    public Membership await(String diskUuid, boolean controlPlane) throws InterruptedException, IOException {
        return await(diskUuid, controlPlane, null);
    }

    /**
     * As {@link #await(String, boolean)}, every key held against {@code remembered}, the TPM's record of
     * the disk (null only for a disk adopted without one).
     */
    public Membership await(String diskUuid, boolean controlPlane, RememberedDisk remembered)
            throws InterruptedException, IOException {
        unlocker.startWaiting(diskUuid, remembered);
        LOG.info("State disk {} holds an initialized cluster disk: waiting for its key (rejoin{})", diskUuid,
                controlPlane ? " or recovery on port " + recovery.port() : "");
        Thread rejoin = new Thread(() -> {
            try {
                new RejoinClient(joinServices, transport, unlocker, backoff, sleeper, verifyEndpoint).run(diskUuid);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "rejoin");
        rejoin.setDaemon(true);
        rejoin.start();
        RecoveryServer server = controlPlane ? RecoveryServer.start(recovery.port(), attester, new RecoveryEndpoint(unlocker)) : null;
        try {
            return unlocker.unlocked().get();
        } catch (ExecutionException e) {
            throw new IOException("unlocking the state disk: " + e.getCause(), e.getCause());
        } finally {
            rejoin.interrupt();
            if (server != null) {
                server.close();
            }
        }
    }
}
