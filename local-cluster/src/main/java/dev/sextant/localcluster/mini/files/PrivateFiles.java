package dev.sextant.localcluster.mini.files;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * Owner-only permissions for what holds a cluster's secrets: the mini directory (master secret,
 * init secret, CA and signing keys, disks) is 0700, a private key 0600. Applied to what exists
 * as well, so a directory made by an older sextant is tightened too.
 */
public final class PrivateFiles {
    private PrivateFiles() {
    }

    /** Creates {@code dir} (and parents) if needed and makes it 0700. */
    public static Path directory(Path dir) throws IOException {
        Files.createDirectories(dir);
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
        return dir;
    }

    /** Makes an existing {@code file} 0600. */
    public static Path ownerOnly(Path file) throws IOException {
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        return file;
    }
}
