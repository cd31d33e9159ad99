package dev.sextant.attestation.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * Deletes a test's own scratch directory when it is done. Tests that hand a directory to Micronaut
 * through {@code TestPropertyProvider} cannot use JUnit's {@code @TempDir}: JUnit fills that field only
 * after Micronaut has asked for the properties. Left behind, such directories filled CI's disk.
 */
public final class ScratchDirs {
    private ScratchDirs() {}

    /** Deletes {@code dir} and everything under it; nothing if it is null or already gone. */
    public static void delete(Path dir) {
        if (dir == null || !Files.exists(dir)) {
            return;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (IOException e) {
            throw new UncheckedIOException("deleting " + dir, e);
        }
    }
}
