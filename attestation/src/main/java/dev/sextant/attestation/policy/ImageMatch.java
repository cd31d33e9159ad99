package dev.sextant.attestation.policy;

import java.util.List;
import java.util.Map;

/** What a measurement set says of one node's quoted PCRs ({@link MeasurementSet#match}). */
public sealed interface ImageMatch {
    /** The PCRs match an image the set admits; warnOnly mismatches of that image are {@code warnings}. */
    record Admitted(ImageMeasurements image, List<String> warnings) implements ImageMatch {
        public Admitted {
            warnings = List.copyOf(warnings);
        }
    }

    /** The PCRs match an image the set has retired: the node runs it and must be refused, naming it. */
    record Retired(ImageMeasurements image, long setVersion) implements ImageMatch {
        public String sentence() {
            return "the node runs image " + image.imageVersion() + ", retired by measurement set version " + setVersion;
        }
    }

    /** No image matches: per admitted image (by version, in the set's order) the PCRs that differ. */
    record Mismatch(Map<String, List<String>> failures) implements ImageMatch {
        public Mismatch {
            failures = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(failures));
        }

        /** One image's failures as they always read; several images' each prefixed with the image's version. */
        public String sentence() {
            if (failures.size() == 1) {
                return String.join("; ", failures.values().iterator().next());
            }
            return String.join("; ", failures.entrySet().stream()
                    .map(e -> "image " + e.getKey() + ": " + String.join(", ", e.getValue())).toList());
        }
    }
}
