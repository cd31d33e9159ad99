package dev.sextant.joinapi.measurements;

import dev.sextant.attestation.policy.MeasurementsException;
import dev.sextant.attestation.digest.Sha256;
import dev.sextant.attestation.policy.MeasurementsFile;
import dev.sextant.attestation.policy.MeasurementsKey;
import dev.sextant.etcd.client.Versioned;
import dev.sextant.grpcsupport.Refusal;
import dev.sextant.serviceconfig.JoinServiceConfig;
import io.micronaut.context.annotation.Context;
import io.micronaut.context.annotation.Requires;
import io.micronaut.context.annotation.Value;
import jakarta.annotation.PreDestroy;
import jakarta.inject.Provider;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps this join service's set in force equal to the cluster's, {@code measurements/set} in etcd, read every
 * {@value #POLL} (default 2 s; one round trip on the set store's own connection). What it reads is checked as a
 * published set is ({@link SetCheck}: signed by the pinned key, not below the floor, no retired image
 * re-admitted), because whoever can write etcd (the host holds the control plane's disk while the node is
 * down) is not trusted to write a valid set: a set that fails keeps the one in force and is logged once.
 * Accepting a set that retires images records them with the floor raised, in one transaction.
 *
 * <p>Where etcd holds no set yet, the service writes its own (its file or ConfigMap: only the first set), once
 * the cluster pinned a key that admits it ({@link SetAdmissionAtStart} pins at init).
 */
@Context
@Requires(property = PublishedSetWatcher.ENABLED, notEquals = "false")
public class PublishedSetWatcher implements AutoCloseable {
    public static final String ENABLED = "sextant.join.measurements.published-set.enabled";
    public static final String POLL = "sextant.join.measurements.published-set.poll";
    private static final Logger LOG = LoggerFactory.getLogger(PublishedSetWatcher.class);

    private final SetStore store;
    private final SetCheck check;
    /** Through a provider: the verifier is built on the watcher's thread, not at start (as {@link SetAdmissionAtStart} keeps it). */
    private final Provider<ReloadingVerifier> verifier;
    private final Path file;
    private final Duration period;
    private final Thread thread;
    private long seenRevision = -1;
    private boolean storeDown;

    public PublishedSetWatcher(SetStore store, SetCheck check, Provider<ReloadingVerifier> verifier, JoinServiceConfig config,
                               @Value("${" + POLL + ":2s}") Duration period) {
        this.store = store;
        this.check = check;
        this.verifier = verifier;
        this.file = config.measurements().file();
        this.period = period;
        this.thread = new Thread(this::run, "published-set-watcher");
        thread.setDaemon(true);
        thread.start();
    }

    private void run() {
        try {
            while (!Thread.currentThread().isInterrupted()) {
                syncOnce();
                Thread.sleep(period.toMillis());
            }
        } catch (InterruptedException e) {
            // Closing: the normal way out.
        } catch (RuntimeException e) {
            LOG.error("the published measurement set watcher stopped; sets published from now on are not picked up until restart", e);
        }
    }

    /** One look at {@code measurements/set}: take it if it changed and passes, write the first one if none is there. */
    void syncOnce() {
        try {
            Optional<Versioned> stored = store.set();
            storeDown = false;
            if (stored.isEmpty()) {
                putFirst();
                return;
            }
            if (stored.get().modRevision() == seenRevision) {
                return;
            }
            take(stored.get());
        } catch (Refusal r) {
            if (!storeDown) {
                LOG.warn("the published measurement set could not be read ({}): {}", r.reason().tag(), r.getMessage(), r.getCause());
            }
            storeDown = true;
        }
    }

    private void take(Versioned stored) throws Refusal {
        ReloadingVerifier inForce = verifier.get();
        SignedSet signed;
        try {
            signed = SignedSet.fromStoreValue(stored.value());
        } catch (IllegalArgumentException e) {
            refuse(stored.modRevision(), inForce, "not a signed set: " + e.getMessage());
            return;
        }
        // This service published it, or took it from its file: judged still (its retirements may be unrecorded), not refused loudly.
        boolean alreadyInForce = inForce.setInForce().digest().equals(MeasurementsKey.PREFIX + Sha256.hex(signed.json()));
        SetCheck.Passed passed;
        try {
            passed = check.check(signed, inForce.version(), SetCheck.Versions.NOT_BELOW_IN_FORCE);
        } catch (Refusal r) {
            if (r.isServerSide()) {
                throw r; // etcd did not answer: look again at the next poll
            }
            if (alreadyInForce) {
                seenRevision = stored.modRevision();
                LOG.debug("the set in force, as the cluster store holds it, no longer passes ({}): {}", r.reason().tag(), r.getMessage());
                return;
            }
            if (supersededSince(stored)) {
                return; // a newer set was published while this one was judged (it is below its floor): take that one
            }
            refuse(stored.modRevision(), inForce, r.getMessage());
            return;
        }
        if (!passed.newlyRetired().isEmpty()
                && !store.commit(Optional.empty(), 0, passed.set().version(), passed.raisesFloor(), passed.floorRevision(), passed.newlyRetired(), passed.keyPinRevision())) {
            return; // the floor or a retirement changed since it was read: decide again at the next poll
        }
        try {
            if (inForce.offer(signed.json(), signed.signatureBytes())) {
                LOG.info("measurement set version {} from the cluster store in force{}", passed.set().version(),
                        passed.newlyRetired().isEmpty() ? "" : "; retired images recorded: " + passed.newlyRetired().keySet());
            }
        } catch (MeasurementsException e) {
            refuse(stored.modRevision(), inForce, e.getMessage());
            return;
        }
        seenRevision = stored.modRevision();
    }

    private boolean supersededSince(Versioned stored) throws Refusal {
        return store.set().map(Versioned::modRevision).orElse(0L) != stored.modRevision();
    }

    private void refuse(long revision, ReloadingVerifier inForce, String why) {
        if (revision != seenRevision) {
            LOG.error("refusing the measurement set in the cluster store (revision {}), keeping version {} in force: {}",
                    revision, inForce.version(), why);
        }
        seenRevision = revision;
    }

    private void putFirst() throws Refusal {
        SignedSet own;
        try {
            own = new SignedSet(Files.readAllBytes(file), Files.readString(MeasurementsFile.signatureFile(file), StandardCharsets.UTF_8));
        } catch (IOException e) {
            LOG.debug("no set of its own to write to the cluster store yet: {}", e.toString());
            return;
        }
        try {
            check.check(own, verifier.get().version(), SetCheck.Versions.NOT_BELOW_IN_FORCE);
        } catch (Refusal r) {
            if (r.isServerSide()) {
                throw r;
            }
            LOG.debug("this service's own set is not written to the cluster store ({}): {}", r.reason().tag(), r.getMessage());
            return;
        }
        if (store.putFirst(own)) {
            LOG.info("this join service's measurement set is the cluster store's first set in force");
        }
    }

    @Override
    @PreDestroy
    public void close() {
        thread.interrupt();
    }
}
