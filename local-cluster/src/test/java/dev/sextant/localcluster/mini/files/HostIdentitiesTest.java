package dev.sextant.localcluster.mini.files;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@DisplayName("The host-side identities of a mini cluster")
class HostIdentitiesTest {
    @TempDir
    Path dir;

    @Test
    @DisplayName("keep the mini directory 0700 and the EK CA's private key 0600")
    void privateFiles() throws Exception {
        List<String> progress = new ArrayList<>();
        MiniLayout layout = new MiniLayout(dir.resolve("m"));
        PrivateFiles.directory(layout.dir());
        HostIdentities.ca(layout, progress::add);
        HostIdentities.measurementsKey(layout, progress::add);
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(layout.dir())));
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(layout.caDir())));
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(layout.caKey())));
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(layout.measurementsKey())));
    }
}
