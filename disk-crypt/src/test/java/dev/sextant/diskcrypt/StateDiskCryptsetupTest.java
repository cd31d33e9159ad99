package dev.sextant.diskcrypt;

import dev.sextant.attestation.testkit.Tools;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Real cryptsetup on an image file: formatting, header backup/restore, key change and tokens, all of
 * which work on a file without device-mapper. Opening the mapping is not tested here; the QEMU boots
 * (mini e2e) open and mount the disk.
 */
class StateDiskCryptsetupTest {
    @TempDir
    Path dir;

    @Test
    @DisplayName("with real cryptsetup: format with a random passphrase, then re-key to the cluster key and mark initialized")
    void formatThenRekey() throws Exception {
        Tools.assumeInstalled("cryptsetup");
        Path image = dir.resolve("state.img");
        try (RandomAccessFile file = new RandomAccessFile(image.toFile(), "rw")) {
            file.setLength(32L << 20);
        }
        var runner = new ProcessCommandRunner();
        StateDisk disk = new StateDisk(new StateDiskSettings(image, dir.resolve("work"), dir.resolve("state.key"),
                8192, 4), runner);

        byte[] boot = disk.formatWithRandomPassphrase();
        assertFalse(disk.isInitialized(), "a fresh disk is not initialized");
        assertTrue(disk.keyCheckValue().orElseThrow().matches(boot), "cryptsetup keeps the check value in Sextant's token");
        String uuid = disk.uuid();
        assertTrue(uuid.matches("[0-9a-f-]{36}"), uuid);

        byte[] clusterKey = new byte[32];
        clusterKey[0] = 42;
        disk.rekey(boot, clusterKey);
        assertTrue(disk.isInitialized());
        assertEquals(0, test(runner, image, clusterKey), "the cluster key opens key slot 0");
        assertNotEquals(0, test(runner, image, boot), "the boot passphrase no longer does");
        assertTrue(disk.keyCheckValue().orElseThrow().matches(clusterKey), "the check value is the cluster key's");
        assertFalse(disk.keyCheckValue().orElseThrow().matches(boot));

        disk.markForReset();
        assertFalse(disk.isInitialized());
    }

    private static int test(ProcessCommandRunner runner, Path image, byte[] key) throws Exception {
        return runner.run(List.of("cryptsetup", "open", "--test-passphrase", "--key-file", "-", image.toString()), key)
                .exitCode();
    }

    @Test
    @DisplayName("with real cryptsetup: a blank disk is formatted at first use, its boot key kept 0400; an initialized one is never reformatted")
    void blankDiskGetsBootKey() throws Exception {
        Tools.assumeInstalled("cryptsetup");
        Path image = dir.resolve("blank.img");
        try (RandomAccessFile file = new RandomAccessFile(image.toFile(), "rw")) {
            file.setLength(32L << 20);
        }
        Path keyFile = dir.resolve("keys/state.key");
        var runner = new ProcessCommandRunner();
        StateDisk disk = new StateDisk(new StateDiskSettings(image, dir.resolve("work"), keyFile, 8192, 4), runner);

        byte[] boot = disk.bootPassphrase();
        assertEquals("r--------", java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(keyFile)));
        assertEquals(0, test(runner, image, boot));
        assertEquals(java.util.HexFormat.of().formatHex(boot), java.util.HexFormat.of().formatHex(disk.bootPassphrase()),
                "a second call reads the key file instead of formatting again");

        disk.rekey(boot, new byte[32]);
        Files.setPosixFilePermissions(keyFile, java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
        Files.delete(keyFile);
        var e = org.junit.jupiter.api.Assertions.assertThrows(DiskCryptException.class, disk::bootPassphrase);
        assertTrue(e.getMessage().contains("opens only with its cluster key"), e.getMessage());
        assertEquals(0, test(runner, image, new byte[32]), "the cluster disk is untouched");
        assertTrue(disk.holdsInitializedCluster());
        assertTrue(disk.opensWith(new byte[32]), "the cluster key passes --test-passphrase through the validated header copy");
        byte[] wrong = new byte[32];
        wrong[0] = 1;
        assertFalse(disk.opensWith(wrong), "a wrong key is refused");
    }
}
