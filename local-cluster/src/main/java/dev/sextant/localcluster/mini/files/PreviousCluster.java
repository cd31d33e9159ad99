package dev.sextant.localcluster.mini.files;

import dev.sextant.attestation.policy.MeasurementsFile;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.function.Consumer;

/** A new cluster replaces a stopped one's node states; the CA and signing key stay. */
public final class PreviousCluster {
    private PreviousCluster() {
    }

    /** Removes what {@code previous} left in {@code layout} that belongs to that cluster alone. */
    public static void clear(MiniLayout layout, MiniState previous, Consumer<String> progress) {
        try {
            for (MiniState.Node node : previous.nodes()) {
                FileTrees.delete(layout.nodeDir(node.name()));
            }
            Files.deleteIfExists(layout.kubeconfig());
            Files.deleteIfExists(layout.clusterMeasurements());
            Files.deleteIfExists(MeasurementsFile.signatureFile(layout.clusterMeasurements()));
            if (Files.exists(layout.masterSecret())) {
                // Its disks are gone with the node states, but a master secret is never silently deleted.
                Path kept = layout.masterSecret().resolveSibling("master-secret.previous.json");
                Files.move(layout.masterSecret(), kept, StandardCopyOption.REPLACE_EXISTING);
                progress.accept("new cluster: the previous (stopped) cluster's master secret is kept as " + kept);
            }
            progress.accept("new cluster: replaced the stopped cluster's node states in " + layout.dir());
        } catch (IOException e) {
            throw new UncheckedIOException("clearing the stopped cluster in " + layout.dir(), e);
        }
    }
}
