package dev.sextant.joinapi.measurements;

import dev.sextant.attestation.policy.ImageMeasurements;
import dev.sextant.attestation.policy.MeasurementsException;
import dev.sextant.etcd.client.Versioned;
import dev.sextant.grpcsupport.Refusal;
import dev.sextant.joinapi.refusal.JoinRefusal;
import jakarta.inject.Singleton;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes a measurement set: checks it ({@link SetCheck}, its version above the one in force), then writes
 * it to {@code measurements/set} with a compare-and-put on the revision read, in one transaction with the
 * floor raised to its version and the images it retires recorded. Two operators publishing at once: etcd
 * orders the two transactions, the second is checked again against the first's set and floor. This join
 * service uses the set at once; the others when they read it ({@link PublishedSetWatcher}).
 */
@Singleton
public class SetPublisher {
    private static final Logger LOG = LoggerFactory.getLogger(SetPublisher.class);
    /** Only another publish at the same moment makes the compare-and-put lose. */
    private static final int ATTEMPTS = 5;

    private final SetStore store;
    private final SetCheck check;
    private final ReloadingVerifier verifier;

    public SetPublisher(SetStore store, SetCheck check, ReloadingVerifier verifier) {
        this.store = store;
        this.check = check;
        this.verifier = verifier;
    }

    /** What a publish did: the version now in force, the images it admits, the ones it retired first. */
    public record Published(long version, List<String> imageVersions, List<String> newlyRetired) {
    }

    public Published publish(SignedSet signed) throws Refusal {
        for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
            Optional<Versioned> current = store.set();
            SetCheck.Passed passed = check.check(signed, verifier.version(), SetCheck.Versions.ABOVE_IN_FORCE);
            long version = passed.set().version();
            if (!store.commit(Optional.of(signed), current.map(Versioned::modRevision).orElse(0L), version, passed.raisesFloor(),
                    passed.floorRevision(), passed.newlyRetired(), passed.keyPinRevision())) {
                continue;
            }
            LOG.info("measurement set version {} published (images {}; newly retired {})", version,
                    passed.set().images().stream().map(ImageMeasurements::imageVersion).toList(), passed.newlyRetired().keySet());
            try {
                verifier.offer(signed.json(), signed.signatureBytes());
            } catch (MeasurementsException e) {
                // Checked above under the same key; only a key file swapped in between gets here. The set is the
                // cluster's now; this service takes it when it reads it back.
                LOG.warn("the published set version {} is not in force here yet: {}", version, e.getMessage());
            }
            return new Published(version, passed.set().images().stream().map(ImageMeasurements::imageVersion).toList(),
                    List.copyOf(passed.newlyRetired().keySet()));
        }
        throw new Refusal(JoinRefusal.CLUSTER_STORE_UNAVAILABLE, "the measurement set in the cluster store kept changing"
                + " while this one was published (another publish at the same moment?); retry");
    }
}
