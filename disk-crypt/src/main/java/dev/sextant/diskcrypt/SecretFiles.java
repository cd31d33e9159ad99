package dev.sextant.diskcrypt;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Comparator;
import java.util.stream.Stream;

/** Key material on disk only in 0700 directories and 0600 files, overwritten before deletion. */
public final class SecretFiles {
    private SecretFiles() {}

    static Path privateDirectory(Path parent) throws IOException {
        Files.createDirectories(parent);
        return Files.createTempDirectory(parent, "luks-",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    }

    public static Path write(Path file, byte[] secret) throws IOException {
        Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        Files.write(file, secret);
        return file;
    }

    static void wipe(Path file) {
        try {
            if (Files.exists(file)) {
                Files.write(file, new byte[(int) Files.size(file)]);
                Files.delete(file);
            }
        } catch (IOException ignored) {
            // The directory is deleted right after; on a node it lives on tmpfs anyway.
        }
    }

    static void deleteTree(Path dir) {
        if (dir == null) {
            return;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // Best effort: a leftover header copy holds no secret.
        }
    }
}
