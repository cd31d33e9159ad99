package dev.sextant.imagebuilder;

import dev.sextant.measuredboot.predict.Prediction;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A built (or reused) image: its files, its version, the PCRs predicted from it, how long each stage took
 * (in order), so a benchmark run shows cold and cached build times, and the images it upgrades from.
 */
public record BuildResult(Path image, ImageVersion imageVersion, Path measurements, Prediction prediction,
                          Map<String, Duration> stages, boolean reused, UpgradesFrom upgradesFrom) {
    public BuildResult {
        stages = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(stages));
    }

    public Duration total() {
        return stages.values().stream().reduce(Duration.ZERO, Duration::plus);
    }
}
