package dev.sextant.diskcrypt;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The logic above cryptsetup, with a recorded command runner (the host has no device-mapper). */
class StateDiskTest {
    @TempDir
    Path dir;

    /** Records each command; answers luksDump with {@code header} and watches for key files. */
    private final class Recorder implements CommandRunner {
        final List<String> commands = new ArrayList<>();
        final List<String> stdins = new ArrayList<>();
        String header;
        boolean keyFileSeenBeforeValidation;

        @Override
        public Result run(List<String> argv, byte[] stdin) throws IOException {
            commands.add(String.join(" ", argv.subList(0, 2)));
            stdins.add(new String(stdin, StandardCharsets.UTF_8));
            if (argv.get(1).equals("luksHeaderBackup")) {
                Path copy = Path.of(argv.get(argv.size() - 1));
                try (var files = Files.list(copy.getParent())) {
                    keyFileSeenBeforeValidation |= files.anyMatch(f -> f.getFileName().toString().endsWith(".key"));
                }
            }
            String out = switch (argv.get(1)) {
                case "luksDump" -> header;
                case "luksUUID" -> "C3833F4F-FAB2-41C3-AAE8-D8D0F1DC9EE4\n";
                default -> "";
            };
            if (argv.get(1).equals("token")) {
                header = header.replaceAll("\"initialized\"\\s*:\\s*(true|false)",
                        "\"initialized\":" + stdins.get(stdins.size() - 1).contains("true"));
            }
            return new Result(0, out, "");
        }
    }

    private StateDisk disk(Recorder recorder) {
        return new StateDisk(new StateDiskSettings(dir.resolve("disk.img"), dir.resolve("work"), dir.resolve("state.key"),
                32768, 4), recorder);
    }

    @Test
    @DisplayName("re-keying validates a detached header copy first, changes key slot 0 and its check value on that copy and writes it back, then sets the marker the same way")
    void rekeyOrder() throws Exception {
        Recorder recorder = new Recorder();
        recorder.header = LuksHeaderValidatorTest.fixture();
        disk(recorder).rekey("old".getBytes(), new byte[32]);
        assertEquals(List.of("cryptsetup luksHeaderBackup", "cryptsetup luksDump", "cryptsetup luksChangeKey",
                "cryptsetup luksUUID", "cryptsetup token", "cryptsetup luksDump", "cryptsetup luksHeaderRestore",
                "cryptsetup luksHeaderBackup", "cryptsetup luksDump", "cryptsetup token", "cryptsetup luksDump",
                "cryptsetup luksHeaderRestore"), recorder.commands);
        assertEquals("old", recorder.stdins.get(2), "the old passphrase goes through stdin, never argv");
        assertTrue(recorder.stdins.get(4).contains("\"check_value\":\""), "the new key's check value, in the same header write");
        assertTrue(recorder.stdins.get(9).contains("\"initialized\":true"));
        assertFalse(recorder.keyFileSeenBeforeValidation);
        try (var left = Files.list(dir.resolve("work"))) {
            assertEquals(0, left.count(), "no header copy or key file is left behind");
        }
    }

    @Test
    @DisplayName("opening maps the disk through the validated header copy with the key on stdin, makes ext4 on first use and mounts it")
    void openAndMountFresh() throws Exception {
        Recorder recorder = new Recorder();
        recorder.header = LuksHeaderValidatorTest.fixture();
        StateDisk disk = new StateDisk(new StateDiskSettings(dir.resolve("disk.img"), dir.resolve("work"), dir.resolve("state.key"),
                32768, 4), new StateMount("state-test", dir.resolve("mnt"), true), recorder);
        String said = disk.openAndMount("cluster-key".getBytes(StandardCharsets.UTF_8));
        assertEquals(List.of("cryptsetup luksHeaderBackup", "cryptsetup luksDump", "cryptsetup open", "blkid -p",
                "mkfs.ext4 -q", "mount -o"), recorder.commands);
        assertEquals("cluster-key", recorder.stdins.get(2), "the key goes through stdin, never argv");
        assertTrue(said.contains("new ext4 on /dev/mapper/state-test mounted at " + dir.resolve("mnt")), said);
    }

    @Test
    @DisplayName("a planted header is refused before any secret is written or handed to cryptsetup")
    void plantedHeaderGetsNoSecret() throws Exception {
        Recorder recorder = new Recorder();
        var root = (com.fasterxml.jackson.databind.node.ObjectNode) new com.fasterxml.jackson.databind.ObjectMapper()
                .readTree(LuksHeaderValidatorTest.fixture());
        ((com.fasterxml.jackson.databind.node.ObjectNode) root.at("/segments/0")).put("encryption", "cipher_null-ecb");
        recorder.header = root.toString();
        assertTrue(recorder.header.contains("cipher_null"), "fixture mutated");
        var e = assertThrows(DiskCryptException.class, () -> disk(recorder).rekey("old".getBytes(), new byte[32]));
        assertTrue(e.getMessage().contains("cipher_null-ecb"), e.getMessage());
        assertEquals(List.of("cryptsetup luksHeaderBackup", "cryptsetup luksDump"), recorder.commands);
        assertTrue(recorder.stdins.stream().allMatch(String::isEmpty), "no secret reached cryptsetup");
    }

    @Test
    @DisplayName("marking a disk this boot formatted for reset flips the token to initialized=false and writes only the header back")
    void markForReset() throws Exception {
        Recorder recorder = new Recorder();
        recorder.header = LuksHeaderValidatorTest.fixture().replace("\"initialized\":false", "\"initialized\":true");
        Files.write(dir.resolve("state.key"), new byte[32]);
        StateDisk disk = disk(recorder);
        disk.bootPassphrase();
        assertTrue(disk.isInitialized());
        disk.markForReset();
        assertFalse(disk.isInitialized());
        assertTrue(recorder.commands.contains("cryptsetup luksHeaderRestore"));
        assertEquals("c3833f4f-fab2-41c3-aae8-d8d0f1dc9ee4", disk.uuid(), "the UUID is lower-cased");
    }

    @Test
    @DisplayName("a member's disk that this boot did not format is never marked for reset: its data survives a failed boot")
    void memberDiskIsNotReset() throws Exception {
        Recorder recorder = new Recorder();
        recorder.header = LuksHeaderValidatorTest.fixture();
        StateDisk disk = disk(recorder);
        var e = assertThrows(DiskCryptException.class, disk::markForReset);
        assertTrue(e.getMessage().contains("this boot did not format it"), e.getMessage());
        assertFalse(recorder.commands.contains("cryptsetup token"));
    }

    @Test
    @DisplayName("a key is tried with --test-passphrase through the validated header copy, on stdin, without mapping anything")
    void keyTestUsesTheValidatedCopy() throws Exception {
        Recorder recorder = new Recorder();
        recorder.header = LuksHeaderValidatorTest.fixture();
        assertTrue(disk(recorder).opensWith("cluster-key".getBytes(StandardCharsets.UTF_8)));
        assertEquals(List.of("cryptsetup luksHeaderBackup", "cryptsetup luksDump", "cryptsetup open"), recorder.commands);
        assertEquals("cluster-key", recorder.stdins.get(2));
    }

    @Test
    @DisplayName("the check value follows the key in key slot 0: the boot passphrase's at format, the cluster key's after re-keying, kept by the marker's changes; it matches no other key")
    void checkValueFollowsTheKey() throws Exception {
        FakeLuks luks = new FakeLuks();
        StateDisk disk = new StateDisk(new StateDiskSettings(dir.resolve("disk.img"), dir.resolve("work"), dir.resolve("state.key"),
                32768, 4), luks);
        byte[] boot = disk.formatWithRandomPassphrase();
        assertTrue(disk.keyCheckValue().orElseThrow().matches(boot));
        byte[] clusterKey = new byte[32];
        clusterKey[0] = 42;
        disk.rekey(boot, clusterKey);
        KeyCheckValue check = disk.keyCheckValue().orElseThrow();
        assertTrue(check.matches(clusterKey), "the cluster key's, after re-keying");
        assertFalse(check.matches(boot), "no longer the boot passphrase's");
        byte[] oneBitOff = clusterKey.clone();
        oneBitOff[31] ^= 1;
        assertFalse(check.matches(oneBitOff));
        disk.markForReset();
        assertTrue(disk.keyCheckValue().orElseThrow().matches(clusterKey), "changing the marker keeps the check value");
        assertFalse(check.toString().contains(check.encoded()), "the value itself never reaches a log line");
    }

    @Test
    @DisplayName("a disk formatted before check values has none, and changing its marker writes none: its keys are tested by cryptsetup alone")
    void diskWithoutCheckValue() throws Exception {
        FakeLuks luks = new FakeLuks();
        StateDisk disk = new StateDisk(new StateDiskSettings(dir.resolve("disk.img"), dir.resolve("work"), dir.resolve("state.key"),
                32768, 4), luks);
        disk.formatWithRandomPassphrase();
        luks.dropCheckValue();
        assertTrue(disk.keyCheckValue().isEmpty());
        disk.markInitialized();
        assertTrue(disk.keyCheckValue().isEmpty());
        assertTrue(disk.isInitialized());
    }
}
