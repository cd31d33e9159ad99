package dev.sextant.nodeboot.start;

import dev.sextant.nodeboot.verify.VerifyEndpointReport;

import dev.sextant.grpcsupport.training.TrainingRun;
import io.micronaut.context.annotation.Requires;
import dev.sextant.attestation.issue.Attester;
import dev.sextant.nodeboot.bringup.BringUp;
import dev.sextant.nodeboot.bringup.BringUpOutcome;
import dev.sextant.nodeboot.bringup.Membership;
import dev.sextant.diskcrypt.DiskCryptException;
import dev.sextant.diskcrypt.StateDisk;
import dev.sextant.housekeeping.discovery.ControlPlaneDiscovery;
import dev.sextant.nodeboot.failure.FailureHandler;
import dev.sextant.nodeboot.initserver.InitSettings;
import dev.sextant.housekeeping.retry.Backoff;
import dev.sextant.nodeboot.joinclient.JoinClient;
import dev.sextant.nodeboot.joinclient.JoinClientSettings;
import dev.sextant.nodeboot.joinclient.JoinOutcome;
import dev.sextant.nodeboot.joinclient.RejoinTransport;
import dev.sextant.nodeboot.joinclient.RejoinTransports;
import dev.sextant.nodeboot.rememberdisk.DiskMemory;
import dev.sextant.nodeboot.rememberdisk.RememberedDisk;
import dev.sextant.nodeboot.rememberdisk.RememberedDiskSettings;
import dev.sextant.nodeboot.bringup.BootstrapStatus;
import dev.sextant.nodeboot.nodelock.NodeLock;
import dev.sextant.nodeboot.unlock.DiskUnlocker;
import dev.sextant.nodeboot.unlock.RecoverySettings;
import io.grpc.Status;
import io.micronaut.context.BeanProvider;
import io.micronaut.context.event.StartupEvent;
import io.micronaut.runtime.event.annotation.EventListener;
import jakarta.inject.Named;
import jakarta.inject.Singleton;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;

/**
 * Decides, once per bootstrapper start, which way this boot goes:
 * <ul>
 *   <li>PCR 15 already marked: an earlier run of this boot bootstrapped the node; serve verify only;</li>
 *   <li>the state disk holds an initialized cluster disk: if the TPM remembers it ({@link UnlockPlanner}),
 *       unlock it (rejoin racing recovery, recovery only on a node recorded as a control plane), then
 *       bring the node up again from the state on the disk; init and join never run. A disk the TPM
 *       does not remember stays locked;</li>
 *   <li>otherwise a fresh node: the join path runs when join services are configured, init waits for the operator.</li>
 * </ul>
 */
@Requires(notEnv = TrainingRun.ENVIRONMENT)
@Singleton
final class BootStarter {
    private static final Logger LOG = LoggerFactory.getLogger(BootStarter.class);

    private final NodeLock lock;
    private final StateDisk disk;
    private final JoinClientSettings joinSettings;
    private final InitSettings initSettings;
    private final BeanProvider<JoinClient> joinClient;
    private final BringUp bringUp;
    private final BootstrapStatus status;
    private final DiskUnlocker unlocker;
    private final ControlPlaneDiscovery joinServices;
    private final BeanProvider<RejoinTransports> rejoinTransports;
    private final DiskMemory memory;
    private final RememberedDiskSettings memorySettings;
    private final Attester attester;
    private final RecoverySettings recovery;
    private final FailureHandler failure;
    private final VerifyEndpointReport verifyEndpoint;

    BootStarter(NodeLock lock, StateDisk disk, JoinClientSettings joinSettings, InitSettings initSettings,
                BeanProvider<JoinClient> joinClient, BringUp bringUp, BootstrapStatus status, DiskUnlocker unlocker,
                @Named("join-services") ControlPlaneDiscovery joinServices, BeanProvider<RejoinTransports> rejoinTransports,
                DiskMemory memory, RememberedDiskSettings memorySettings, Attester attester, RecoverySettings recovery,
                FailureHandler failure, VerifyEndpointReport verifyEndpoint) {
        this.verifyEndpoint = verifyEndpoint;
        this.lock = lock;
        this.disk = disk;
        this.joinSettings = joinSettings;
        this.initSettings = initSettings;
        this.joinClient = joinClient;
        this.bringUp = bringUp;
        this.status = status;
        this.unlocker = unlocker;
        this.joinServices = joinServices;
        this.rejoinTransports = rejoinTransports;
        this.memory = memory;
        this.memorySettings = memorySettings;
        this.attester = attester;
        this.recovery = recovery;
        this.failure = failure;
    }

    @EventListener
    void onStartup(StartupEvent event) {
        if (lock.isLocked()) {
            LOG.info("The node was bootstrapped earlier in this boot: serving verification only");
            return;
        }
        String initializedUuid;
        try {
            initializedUuid = disk.holdsInitializedCluster() ? disk.uuid() : null;
        } catch (DiskCryptException e) {
            // Never format what cannot be read: a planted or damaged header waits for a human.
            LOG.error("The state disk's header cannot be read or is refused ({}); neither init, join nor unlock runs",
                    e.getMessage());
            return;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        if (initializedUuid != null) {
            background("unlock", () -> unlockAndBringUp(initializedUuid));
        } else if (joinSettings.enabled()) {
            background("join-client", this::join);
        } else {
            LOG.info("No join service endpoints configured: waiting for init only");
        }
    }

    /**
     * The role the host's settings give the node ({@code sextant.node.join.control-plane}, or an init
     * secret hash): measured by nothing, so it decides recovery only when an unrecorded disk is
     * adopted under the insecure setting. Otherwise the role the TPM recorded decides.
     */
    private boolean configuredControlPlane() {
        return joinSettings.controlPlane() || Files.exists(initSettings.secretHashFile());
    }

    private void unlockAndBringUp(String uuid) throws InterruptedException {
        UnlockPlan plan = new UnlockPlanner(memory, memorySettings, this::configuredControlPlane).plan(uuid);
        if (plan instanceof UnlockPlan.StayLocked locked) {
            LOG.error("{}", locked.reason());
            return;
        }
        RememberedDisk remembered = plan instanceof UnlockPlan.Remembered r ? r.disk() : null;
        Membership membership;
        try {
            membership = new BootUnlock(unlocker, joinServices, rejoinTransport(remembered), attester, recovery,
                    Backoff.standard(), duration -> Thread.sleep(duration.toMillis()))
                    .reportingVerifyEndpoint(verifyEndpoint.endpoint())
                    .await(uuid, plan.serveRecovery(), remembered);
            if (plan instanceof UnlockPlan.Adopt) {
                // Before the lock, so PCR 15 is still zero and the write policy is met.
                memory.remember(uuid, membership.clusterId(), membership.diskKey(), membership.controlPlane());
                LOG.warn("INSECURE: state disk {} adopted: from now on this node's TPM remembers it", uuid);
            } else {
                new RecordAfterUnlock(memory).rerecord(remembered, membership);
            }
        } catch (IOException e) {
            LOG.error("Unlock at boot failed: {}", e.getMessage());
            failure.fatal("unlock: " + e.getMessage());
            return;
        }
        BringUpOutcome outcome = bringUp.run(membership, (step, detail) -> LOG.info("{}: {}: {}", membership.via().label(), step, detail));
        LOG.info("Bring-up after unlock ended: {}", outcome);
        if (outcome instanceof BringUpOutcome.Bootstrapped done) {
            status.bootstrapped(done);
        }
    }

    /**
     * Rejoin over the verified transport, to join services of the remembered cluster only; a node
     * that cannot verify join services (no EK CA) asks none, says why every round, and can still be
     * recovered by the operator.
     */
    private RejoinTransport rejoinTransport(RememberedDisk remembered) {
        try {
            RejoinTransports transports = rejoinTransports.get();
            return remembered != null ? transports.ofCluster(remembered.clusterIdDigest(), remembered.joinServiceRoleDigest()) : transports.ofUnknownCluster();
        } catch (RuntimeException | javax.net.ssl.SSLException e) {
            String why = rootMessage(e);
            LOG.error("Rejoin disabled: {}", why);
            return (endpoint, request) -> {
                throw Status.FAILED_PRECONDITION.withDescription("rejoin disabled: " + why).asRuntimeException();
            };
        }
    }

    private void join() throws InterruptedException {
        JoinClient client;
        try {
            client = joinClient.get();
        } catch (RuntimeException e) {
            LOG.error("The join path cannot start: {}", rootMessage(e));
            return;
        }
        JoinOutcome outcome = client.run();
        LOG.info("Join path ended: {}", outcome);
        if (outcome instanceof JoinOutcome.Joined joined) {
            status.bootstrapped(joined.bootstrapped());
        }
    }

    private static String rootMessage(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null) {
            root = root.getCause();
        }
        return root.getMessage();
    }

    @FunctionalInterface
    private interface Task {
        void run() throws InterruptedException;
    }

    private static void background(String name, Task task) {
        Thread thread = new Thread(() -> {
            try {
                task.run();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, name);
        thread.setDaemon(true);
        thread.start();
    }
}
