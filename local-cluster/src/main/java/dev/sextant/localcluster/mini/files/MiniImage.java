package dev.sextant.localcluster.mini.files;

import dev.sextant.attestation.policy.MeasurementsException;
import dev.sextant.attestation.policy.MeasurementsFile;
import dev.sextant.imagebuilder.BuildException;
import dev.sextant.imagebuilder.BuildRequest;
import dev.sextant.imagebuilder.BuildResult;
import dev.sextant.imagebuilder.EkCaBundle;
import dev.sextant.imagebuilder.ImageBuilder;
import dev.sextant.imagebuilder.NodeBootJars;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The image a mini cluster boots. The image builder builds {@code out/image} with the mini EK CA
 * built in (the workers verify their join service's TPM against it) or reuses it when its inputs,
 * that CA among them, did not change; the cluster then boots its own hard link of that image.raw (a
 * rebuild replaces out/image's file and leaves the running nodes' one alone) and keeps the image's
 * measurements signed with the mini key. Both are refreshed only when the image differs.
 */
public final class MiniImage {
    private final MiniLayout layout;
    private final Consumer<String> log;

    public MiniImage(MiniLayout layout, Consumer<String> log) {
        this.layout = layout;
        this.log = log;
    }

    /** What {@link #prepare} did: whether the builder reused out/image, and whether the cluster's copy changed. */
    public record Prepared(Path image, Path measurements, boolean builtNow, boolean refreshed) {
    }

    /**
     * Builds (or reuses) the image in {@code imageDir} from the source tree {@code repo}, with the
     * mini EK CA, which must exist by now; with no repo, {@code imageDir} must already hold
     * image.raw and measurements.json of an image built with that CA.
     */
    public Prepared prepare(Path imageDir, Optional<Path> repo) throws IOException, BuildException, MeasurementsException {
        boolean builtNow = false;
        EkCaBundle ca = EkCaBundle.read(List.of(layout.caCert()));
        if (repo.isPresent()) {
            BuildRequest request = BuildRequest.forRepo(repo.get(), imageDir,
                    Optional.of(new NodeBootJars(repo.get()).locateOrBuild(line -> log.accept("image| " + line))))
                    .withEkCa(ca);
            BuildResult result = new ImageBuilder(line -> log.accept("image| " + line)).build(request);
            builtNow = !result.reused();
        }
        Path image = imageDir.resolve("image.raw");
        Path measurements = imageDir.resolve(ImageBuilder.MEASUREMENTS);
        for (Path needed : new Path[] {image, measurements}) {
            if (!Files.isRegularFile(needed)) {
                throw new IOException("no " + needed + "; build the image with 'sextant image build --out " + imageDir
                        + " --ek-ca " + layout.caCert() + "' or let 'sextant mini up' build it (it needs the source tree)");
            }
        }
        if (repo.isEmpty()) {
            requireEkCa(imageDir, ca);
        }
        boolean refresh = !isCurrent(image, measurements, layout.image(), layout.measurements(),
                MeasurementsFile.signatureFile(layout.measurements()));
        if (refresh) {
            link(image, layout.image(), log);
            Files.copy(measurements, layout.measurements(), StandardCopyOption.REPLACE_EXISTING);
            MeasurementsFile.sign(layout.measurements(), Files.readString(layout.measurementsKey()));
            log.accept("image " + image + " linked as " + layout.image() + "; measurements signed with "
                    + layout.measurementsKey());
        } else {
            log.accept("image " + layout.image() + " is the current " + image + "; its signed measurements stay");
        }
        return new Prepared(layout.image(), layout.measurements(), builtNow, refresh);
    }

    /**
     * An image built without this cluster's EK CA boots, but its workers would wait for a join
     * service they can verify until the join times out: say so before anything boots.
     */
    public void requireEkCa(Path imageDir, EkCaBundle ca) throws IOException, BuildException {
        Path built = imageDir.resolve(EkCaBundle.OUT_FILE);
        if (!Files.isRegularFile(built) || !EkCaBundle.read(List.of(built)).certificates().containsAll(ca.certificates())) {
            throw new IOException("the image in " + imageDir + " was not built with this mini cluster's EK CA "
                    + layout.caCert() + " (" + built + " says which it holds): its workers could verify no join"
                    + " service; build it with 'sextant image build --out " + imageDir + " --ek-ca " + layout.caCert()
                    + "', or let 'sextant mini up' build it (it needs the source tree)");
        }
    }

    /**
     * The cluster's copy is current when it is the very file the builder left (same inode), the
     * measurements are byte for byte the builder's, and they carry a signature.
     */
    static boolean isCurrent(Path builtImage, Path builtMeasurements, Path clusterImage, Path clusterMeasurements,
                             Path signature) throws IOException {
        if (!Files.exists(clusterImage) || !Files.exists(clusterMeasurements) || !Files.exists(signature)) {
            return false;
        }
        return Files.isSameFile(builtImage, clusterImage)
                && Arrays.equals(Files.readAllBytes(builtMeasurements), Files.readAllBytes(clusterMeasurements));
    }

    /** {@code target} becomes a hard link to {@code image}, or a copy where the file system cannot link. */
    public static void link(Path image, Path target, Consumer<String> log) throws IOException {
        Files.deleteIfExists(target);
        try {
            Files.createLink(target, image);
        } catch (IOException | UnsupportedOperationException e) {
            // Another file system: a copy keeps the same guarantee, at the price of the disk space.
            log.accept("cannot hard-link " + image + " (" + e.getMessage() + "); copying it");
            Files.copy(image, target);
        }
    }
}
