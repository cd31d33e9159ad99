package dev.sextant.etcd.testkit;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.extension.AnnotatedElementContext;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.io.TempDirFactory;

/**
 * {@code @TempDir(factory = Tmpfs.class)}: a temporary directory in /dev/shm where there is one. etcd
 * syncs its log at every commit; on a shared disk that sync is most of a test's time.
 */
public final class Tmpfs implements TempDirFactory {
    private static final Path SHM = Path.of("/dev/shm");

    @Override
    public Path createTempDirectory(AnnotatedElementContext element, ExtensionContext context) throws IOException {
        return Files.isDirectory(SHM) && Files.isWritable(SHM)
                ? Files.createTempDirectory(SHM, "sextant-etcd-test-")
                : Files.createTempDirectory("sextant-etcd-test-");
    }
}
