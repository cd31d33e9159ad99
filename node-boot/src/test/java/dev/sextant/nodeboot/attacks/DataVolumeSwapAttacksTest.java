package dev.sextant.nodeboot.attacks;

import dev.sextant.diskcrypt.FakeLuks;
import dev.sextant.housekeeping.volumes.DataVolumeMounter;
import dev.sextant.housekeeping.volumes.DataVolumeSettings;
import dev.sextant.nodeboot.bringup.RememberedVolumeKeys;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The host attaches a control plane's disks, so it chooses which tagged volume the node finds at a
 * reboot. What the node's state disk remembers (the volumes it opened, by LUKS UUID) decides whether it
 * takes it: the tag and the KMS's key for a UUID do not. The volume is a file in a fake sysfs, cryptsetup
 * is {@link FakeLuks} (this host has no device-mapper).
 */
@DisplayName("Attacks on a control plane's etcd data volume at a reboot")
class DataVolumeSwapAttacksTest {
    private static final String OWN_VOLUME = "0e7c0a1d-0000-4000-8000-0000000000aa";
    private static final byte[] OWN_KEY = new byte[32];

    @TempDir
    Path dir;
    private final FakeLuks luks = new FakeLuks();

    @BeforeEach
    void disk() throws Exception {
        Files.createDirectories(dir.resolve("sys/block/vdc"));
        Files.writeString(dir.resolve("sys/block/vdc/serial"), "sx1:test:cp:z1:m0\n");
        Files.createDirectories(dir.resolve("dev"));
        Files.write(dir.resolve("dev/vdc"), new byte[4096]);
    }

    private DataVolumeMounter.Outcome look(Map<String, String> remembered) throws Exception {
        DataVolumeSettings settings = new DataVolumeSettings(true, "test", "cp", "z1", dir.resolve("sys"), dir.resolve("dev"),
                dir.resolve("etcd-data"), "sextant-data", dir.resolve("run/luks-data"), Duration.ofMinutes(1), 8192, 4);
        DataVolumeMounter mounter = new DataVolumeMounter(settings, DataVolumeMounter.qemuSources(settings), luks,
                new RememberedVolumeKeys(remembered, uuid -> ("KMS key of " + uuid).repeat(2).substring(0, 32).getBytes()),
                d -> { }, Clock.systemUTC());
        try {
            return mounter.syncOnce();
        } finally {
            // The boot ends (a power cycle): the next look is the next boot's, or another machine's.
            mounter.release();
        }
    }

    private static Map<String, String> rememberingOwnVolume() {
        return new HashMap<>(Map.of(OWN_VOLUME, Base64.getEncoder().encodeToString(OWN_KEY)));
    }

    @Test
    @DisplayName("a blank disk in place of the control plane's own volume is not formatted: etcd would start an empty member under"
            + " this member's name; the node waits, naming the volume it opened before")
    void blankDiskInsteadOfOwnVolume() throws Exception {
        var waiting = assertInstanceOf(DataVolumeMounter.Outcome.Waiting.class, look(rememberingOwnVolume()));

        assertTrue(waiting.reason().contains("is blank") && waiting.reason().contains(OWN_VOLUME), waiting.reason());
        assertFalse(luks.commands().stream().anyMatch(c -> c.contains("luksFormat")), "nothing is formatted: " + luks.commands());
        assertFalse(luks.mapped(), "nothing is opened");
    }

    @Test
    @DisplayName("another control plane's volume, which the KMS keys just as well by its UUID, is refused: its member's data is"
            + " not this member's; the node waits, naming both volumes, and its memory is unchanged")
    void anotherMembersVolume() throws Exception {
        assertInstanceOf(DataVolumeMounter.Outcome.Mounted.class, look(new HashMap<>()), "control-plane-1 formats and opens its volume");
        luks.powerCycle();

        Map<String, String> remembered = rememberingOwnVolume();
        var waiting = assertInstanceOf(DataVolumeMounter.Outcome.Waiting.class, look(remembered));

        assertTrue(waiting.reason().contains(FakeLuks.UUID) && waiting.reason().contains(OWN_VOLUME), waiting.reason());
        assertFalse(luks.mapped(), "nothing is opened");
        assertEquals(rememberingOwnVolume().keySet(), remembered.keySet());
    }

    @Test
    @DisplayName("control: a control plane that never opened a volume formats the blank one and remembers its key; at the next"
            + " boot it opens the same volume with that key")
    void firstVolumeIsTakenAndRemembered() throws Exception {
        Map<String, String> remembered = new HashMap<>();
        assertInstanceOf(DataVolumeMounter.Outcome.Mounted.class, look(remembered));
        assertEquals(List.of(FakeLuks.UUID), List.copyOf(remembered.keySet()));
        byte[] key = Base64.getDecoder().decode(remembered.get(FakeLuks.UUID));
        assertTrue(luks.opensWith(key));

        luks.powerCycle();
        assertInstanceOf(DataVolumeMounter.Outcome.Mounted.class, look(remembered));
        assertArrayEquals(key, Base64.getDecoder().decode(remembered.get(FakeLuks.UUID)));
    }
}
