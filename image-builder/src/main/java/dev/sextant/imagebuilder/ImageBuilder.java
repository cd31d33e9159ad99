package dev.sextant.imagebuilder;

import dev.sextant.attestation.policy.MeasurementsFile;
import dev.sextant.attestation.policy.MeasurementSet;
import dev.sextant.measuredboot.io.MalformedImageException;
import dev.sextant.measuredboot.predict.PcrPredictor;
import dev.sextant.measuredboot.predict.Prediction;
import dev.sextant.measuredboot.predict.UnpredictableUkiException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Builds the node image with mkosi and predicts its PCRs: stages the apt sources, the node
 * software and the EK CA bundle, runs mkosi (output streamed with an {@code mkosi| } prefix), checks
 * that the erofs root fits its partition, and writes {@code measurements.json}: a measurement set (format 2)
 * of one image, named by the build's image version, with PCRs 4, 9, 11 predicted from the UKI on the ESP and
 * 12, 13, 15 zero; and a copy of the EK CA bundle. An output
 * whose inputs did not change is reused.
 */
public final class ImageBuilder {
    public static final String MEASUREMENTS = "measurements.json";

    private final Consumer<String> log;
    private final PcrPredictor predictor;
    private final Path deb822;
    private final Path oneLine;

    public ImageBuilder(Consumer<String> log) {
        this(log, new PcrPredictor(), AptSources.DEB822, AptSources.ONE_LINE);
    }

    ImageBuilder(Consumer<String> log, PcrPredictor predictor, Path deb822, Path oneLine) {
        this.log = log;
        this.predictor = predictor;
        this.deb822 = deb822;
        this.oneLine = oneLine;
    }

    public BuildResult build(BuildRequest request) throws BuildException {
        Map<String, Duration> stages = new LinkedHashMap<>();
        Instant t = Instant.now();
        createDirectories(request.outDir(), request.workDir(), request.cacheDir());
        Path pkgmngr = request.workDir().resolve("pkgmngr");
        Path node = request.workDir().resolve("node");
        AptSources.writeTree(pkgmngr, AptSources.forHost(deb822, oneLine));
        EkCaBundle ekCa = request.ekCa();
        int jars = NodeTree.stage(node, request.node(), request.k3s(), ekCa);
        log.accept(jars == 0 ? "no node software: /opt/sextant stays empty and sextant-node.service idle"
                : "staged " + jars + " jars into /opt/sextant/lib for " + request.node().orElseThrow().describe());
        log.accept(request.k3s().map(k -> "k3s from " + k + " as /usr/local/bin/k3s")
                .orElse("no k3s binary: nodes will report \"Kubernetes: not installed\""));
        log.accept(ekCa.isEmpty() ? "no EK CA (--ek-ca): nodes of this image cannot verify a join service's TPM and will not join"
                : "EK CA as /" + EkCaBundle.IMAGE_PATH + " (covered by PCR 11 through the verity root hash): " + ekCa.describe());
        MkosiCommand mkosi = new MkosiCommand(request, pkgmngr, node);
        // A version left to the build's time is not an input: an unchanged image keeps the version it was built with.
        String digest = InputDigest.of(List.of(request.mkosiDir(), pkgmngr, node),
                mkosi.arguments(request.imageVersion().map(ImageVersion::value).orElse("(the build's time)")));
        t = lap(stages, "stage inputs", t);

        Path measurements = request.outDir().resolve(MEASUREMENTS);
        Optional<ImageVersion> built = ImageVersion.stored(request.outDir());
        boolean reuse = !request.force() && digest.equals(InputDigest.stored(request.outDir()))
                && Files.isRegularFile(request.image()) && Files.isRegularFile(measurements) && built.isPresent();
        ImageVersion version;
        if (reuse) {
            version = built.get();
            log.accept("inputs unchanged since the image in " + request.outDir() + " was built: reusing it, version "
                    + version + " (--force rebuilds)");
        } else {
            deleteIfExists(request.outDir().resolve(InputDigest.FILE));
            deleteIfExists(request.outDir().resolve(ImageVersion.OUT_FILE));
            version = request.imageVersion().orElseGet(() -> ImageVersion.builtAt(Instant.now()));
            List<String> arguments = mkosi.arguments(version.value());
            log.accept("running: " + String.join(" ", arguments));
            StreamedProcess.run(arguments, request.mkosiDir(), "mkosi| ", log);
            t = lap(stages, "mkosi", t);
            RootFitCheck.check(request.image());
            t = lap(stages, "check root", t);
        }
        Prediction prediction = predict(request.image());
        // A signature from an earlier build must not sit next to new measurements; the caller signs anew.
        deleteIfExists(MeasurementsFile.signatureFile(measurements));
        // A set (format 2) of this one image, named by its image version (what its os-release says, so what a
        // verifier reports); the set versioned by the image's build time, so a join service never reloads the
        // set of an older image over a newer one; a reused image keeps both versions.
        write(measurements, MeasurementSet.of(builtAt(request.image()), prediction.measurements(), version.value()).toJson());
        lap(stages, "predict PCRs", t);
        recordEkCa(request.outDir().resolve(EkCaBundle.OUT_FILE), ekCa);
        if (!reuse) {
            write(request.outDir().resolve(ImageVersion.OUT_FILE), (version + "\n").getBytes(StandardCharsets.US_ASCII));
            InputDigest.store(request.outDir(), digest);
        }
        return new BuildResult(request.image(), version, measurements, prediction, stages, reuse);
    }

    private Instant lap(Map<String, Duration> stages, String stage, Instant since) {
        Instant now = Instant.now();
        Duration took = Duration.between(since, now);
        stages.put(stage, took);
        log.accept(String.format("stage %-14s %6.1f s", stage, took.toMillis() / 1000.0));
        return now;
    }

    private Prediction predict(Path image) throws BuildException {
        try {
            return predictor.predictImage(image);
        } catch (MalformedImageException | UnpredictableUkiException | IOException e) {
            throw new BuildException("cannot predict the PCRs of " + image + ": " + e.getMessage(), e);
        }
    }

    /** Beside the image, which EK CA it holds; no file for an image without one. */
    private static void recordEkCa(Path file, EkCaBundle ekCa) throws BuildException {
        if (ekCa.isEmpty()) {
            deleteIfExists(file);
        } else {
            write(file, ekCa.pem().getBytes(StandardCharsets.US_ASCII));
        }
    }

    private static void createDirectories(Path... dirs) throws BuildException {
        for (Path dir : dirs) {
            try {
                Files.createDirectories(dir);
            } catch (IOException e) {
                throw new BuildException("cannot create " + dir + ": " + e.getMessage(), e);
            }
        }
    }

    /** The image file's modification time in seconds since the epoch: when mkosi wrote it. */
    private static long builtAt(Path image) throws BuildException {
        try {
            return Files.getLastModifiedTime(image).toInstant().getEpochSecond();
        } catch (IOException e) {
            throw new BuildException("cannot read the build time of " + image + ": " + e.getMessage(), e);
        }
    }

    private static void write(Path file, byte[] content) throws BuildException {
        try {
            Files.write(file, content);
        } catch (IOException e) {
            throw new BuildException("cannot write " + file + ": " + e.getMessage(), e);
        }
    }

    private static void deleteIfExists(Path file) throws BuildException {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            throw new BuildException("cannot delete " + file + ": " + e.getMessage(), e);
        }
    }
}
