package dev.sextant.housekeeping.volumes;

import dev.sextant.diskcrypt.CommandRunner;
import dev.sextant.diskcrypt.ProcessCommandRunner;
import dev.sextant.keys.KeyDerivation;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Volume discovery and the claim race against a fake sysfs tree whose device nodes are image files
 * (the claim is a real lock on them); cryptsetup, mkfs and mount are recorded, because this host
 * has no device-mapper. The last test runs the real cryptsetup as far as an image file allows.
 */
class DataVolumeTest {
    private static final KeyDerivation KEYS = new KeyDerivation(new byte[32], new byte[16]);
    private static final String UUID = "c3833f4f-fab2-41c3-aae8-d8d0f1dc9ee4";

    @TempDir
    Path dir;
    Path sys;
    Path dev;

    /** A LUKS UUID's cluster key as the nodes derive it: the data key named by the UUID in lower case. */
    private static byte[] diskKey(String luksUuid) {
        return KEYS.dataKey(luksUuid.toLowerCase(Locale.ROOT), KeyDerivation.KEY_BYTES);
    }

    @BeforeEach
    void fakeSysfs() throws IOException {
        sys = dir.resolve("sys");
        dev = dir.resolve("dev");
        Files.createDirectories(dev);
        disk("vda", null);
        disk("vdb", "sx1:demo:cp:z1:m1\n");
        disk("vdc", "sx1:demo:cp:z2:m2\n");
        disk("vdd", "sx1:other:cp:z1:m1\n");
        disk("vdf", "sx1:demo:worker:z1:m4\n");
        partition("vde", "vde1", "sx1:demo:cp:z1:m3");
    }

    private void disk(String name, String serial) throws IOException {
        Files.createDirectories(sys.resolve("block/" + name));
        if (serial != null) {
            Files.writeString(sys.resolve("block/" + name + "/serial"), serial);
        }
        image(dev.resolve(name));
    }

    private void partition(String disk, String part, String label) throws IOException {
        Files.createDirectories(sys.resolve("class/block/" + disk));
        Files.writeString(sys.resolve("class/block/" + disk + "/uevent"), "MAJOR=254\nMINOR=64\nDEVNAME=" + disk + "\nDEVTYPE=disk\n");
        Files.createDirectories(sys.resolve("class/block/" + part));
        Files.writeString(sys.resolve("class/block/" + part + "/uevent"),
                "MAJOR=254\nMINOR=65\nDEVNAME=" + part + "\nDEVTYPE=partition\nPARTN=1\nPARTNAME=" + label + "\n");
        image(dev.resolve(part));
    }

    private static void image(Path file) throws IOException {
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            f.setLength(32L << 20);
        }
    }

    private DataVolumeSettings settings(String mount) {
        return new DataVolumeSettings(true, "demo", "cp", "z1", sys, dev, dir.resolve(mount), "sextant-data",
                dir.resolve("work"), Duration.ofMinutes(1), 8192, 4);
    }

    private DataVolumeMounter mounter(String mount, CommandRunner runner, List<Duration> sleeps, Semaphore minute) {
        return new DataVolumeMounter(settings(mount), DataVolumeMounter.qemuSources(settings(mount)), runner,
                uuid -> diskKey(uuid), d -> {
                    sleeps.add(d);
                    minute.acquire();
                }, Clock.systemUTC());
    }

    /** cryptsetup, blkid, mkfs and mount as a blank volume answers them. */
    static final class Recorder implements CommandRunner {
        final List<String> commands = Collections.synchronizedList(new ArrayList<>());
        final List<byte[]> stdins = Collections.synchronizedList(new ArrayList<>());
        private boolean formatted;
        private String header;

        Recorder() throws IOException {
            try (InputStream in = Recorder.class.getResourceAsStream("/luks/sextant-initialized.json")) {
                header = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
        }

        @Override
        public synchronized Result run(List<String> argv, byte[] stdin) {
            String command = argv.get(0).equals("cryptsetup") ? "cryptsetup " + argv.get(1) : argv.get(0);
            commands.add(command + " " + argv.get(argv.size() - 1));
            stdins.add(stdin.clone());
            return switch (command) {
                case "cryptsetup isLuks" -> new Result(formatted ? 0 : 1, "", "");
                case "cryptsetup luksFormat" -> {
                    formatted = true;
                    yield new Result(0, "", "");
                }
                case "cryptsetup luksDump" -> new Result(0, header, "");
                case "cryptsetup luksUUID" -> new Result(0, UUID.toUpperCase() + "\n", "");
                case "cryptsetup token" -> {
                    header = header.replaceAll("\"initialized\"\\s*:\\s*(true|false)",
                            "\"initialized\":" + new String(stdin, StandardCharsets.UTF_8).contains("true"));
                    yield new Result(0, "", "");
                }
                case "blkid" -> new Result(2, "", "");
                default -> new Result(0, "", "");
            };
        }

        List<String> touchedDevices() {
            return commands.stream().map(c -> c.substring(c.lastIndexOf(' ') + 1)).filter(d -> d.contains("/dev/")).toList();
        }
    }

    @Test
    @DisplayName("candidates are the volumes tagged for this cluster, role and zone, by serial or GPT name, member order")
    void candidates() throws IOException {
        var m = mounter("db", new Recorder(), new ArrayList<>(), new Semaphore(0));
        List<String> found = m.candidates().stream().map(v -> v.device().getFileName() + " " + v.tags() + " " + v.source()).toList();
        assertEquals(List.of("vdb sx1:demo:cp:z1:m1 virtio serial", "vde1 sx1:demo:cp:z1:m3 GPT name"), found);
    }

    @Test
    @DisplayName("a blank volume is LUKS-formatted, re-keyed to the cluster key of its UUID, opened, given ext4 and mounted; nothing else is touched")
    void blankVolumeIsPrepared() throws Exception {
        Recorder recorder = new Recorder();
        var outcome = mounter("db", recorder, new ArrayList<>(), new Semaphore(0)).syncOnce();

        var mounted = assertInstanceOf(DataVolumeMounter.Outcome.Mounted.class, outcome);
        assertEquals(dev.resolve("vdb"), mounted.volume().device(), "the first member in order, m1");
        List<String> steps = recorder.commands.stream().map(c -> c.substring(0, c.lastIndexOf(' ')))
                .filter(c -> List.of("cryptsetup luksFormat", "cryptsetup luksChangeKey", "cryptsetup open", "mkfs.ext4",
                        "mount").contains(c)).toList();
        assertEquals(List.of("cryptsetup luksFormat", "cryptsetup luksChangeKey", "cryptsetup open", "mkfs.ext4", "mount"), steps);
        int open = recorder.commands.indexOf("cryptsetup open sextant-data");
        assertEquals(HexFormat.of().formatHex(diskKey(UUID)), HexFormat.of().formatHex(recorder.stdins.get(open)),
                "opened with the cluster key derived for the lower-case LUKS UUID, through stdin");
        assertTrue(recorder.commands.contains("mount " + dir.resolve("db")), recorder.commands.toString());
        for (String device : recorder.touchedDevices()) {
            assertTrue(device.equals(dev.resolve("vdb").toString()) || device.equals("/dev/mapper/sextant-data"),
                    "touched " + device);
        }
    }

    @Test
    @DisplayName("keys that refuse a new volume leave a blank one untouched: nothing is formatted or opened, the volume is let go and the node says why")
    void refusedNewVolumeIsNotFormatted() throws Exception {
        Recorder recorder = new Recorder();
        DataVolumeMounter.VolumeKeys refusing = new DataVolumeMounter.VolumeKeys() {
            @Override
            public byte[] keyFor(String luksUuid) {
                return diskKey(luksUuid);
            }

            @Override
            public void admitNew(Volume volume) throws IOException {
                throw new IOException("this node had another volume");
            }
        };
        var mounter = new DataVolumeMounter(settings("db"), DataVolumeMounter.qemuSources(settings("db")), recorder, refusing,
                d -> { }, Clock.systemUTC());

        var waiting = assertInstanceOf(DataVolumeMounter.Outcome.Waiting.class, mounter.syncOnce());
        assertTrue(waiting.reason().contains("this node had another volume"), waiting.reason());
        assertTrue(recorder.commands.stream().noneMatch(c -> c.startsWith("cryptsetup luksFormat") || c.startsWith("cryptsetup open")
                || c.startsWith("mkfs") || c.startsWith("mount")), recorder.commands.toString());
        // Let go: the next look, or another node, may claim it.
        VolumeClaim.tryClaim(dev.resolve("vdb")).orElseThrow(() -> new AssertionError("the refused volume is still held")).close();
    }

    @Test
    @DisplayName("two nodes racing for one volume: exactly one mounts it; the other retries every minute and mounts it once it is free")
    void raceForOneVolume() throws Exception {
        // One volume only: the others lose their tags.
        Files.writeString(sys.resolve("class/block/vde1/uevent"), "DEVTYPE=partition\nPARTNAME=scratch\n");
        Recorder recorderA = new Recorder();
        Recorder recorderB = new Recorder();
        List<Duration> sleepsA = Collections.synchronizedList(new ArrayList<>());
        List<Duration> sleepsB = Collections.synchronizedList(new ArrayList<>());
        Semaphore minuteA = new Semaphore(0);
        Semaphore minuteB = new Semaphore(0);
        DataVolumeMounter a = mounter("db-a", recorderA, sleepsA, minuteA);
        DataVolumeMounter b = mounter("db-b", recorderB, sleepsB, minuteB);

        CountDownLatch go = new CountDownLatch(1);
        CompletableFuture<DataVolumeMounter.Outcome> first = CompletableFuture.supplyAsync(() -> attempt(go, a));
        CompletableFuture<DataVolumeMounter.Outcome> second = CompletableFuture.supplyAsync(() -> attempt(go, b));
        go.countDown();
        List<DataVolumeMounter.Outcome> outcomes = List.of(first.get(30, TimeUnit.SECONDS), second.get(30, TimeUnit.SECONDS));
        assertEquals(1, outcomes.stream().filter(o -> o instanceof DataVolumeMounter.Outcome.Mounted).count(), outcomes.toString());
        boolean aWon = outcomes.get(0) instanceof DataVolumeMounter.Outcome.Mounted;
        var lost = (DataVolumeMounter.Outcome.Waiting) outcomes.get(aWon ? 1 : 0);
        assertTrue(lost.reason().contains("held by another node (members m1)"), lost.reason());
        DataVolumeMounter winner = aWon ? a : b;
        DataVolumeMounter loser = aWon ? b : a;
        List<String> loserCommands = (aWon ? recorderB : recorderA).commands;
        List<Duration> loserSleeps = aWon ? sleepsB : sleepsA;
        Semaphore loserMinute = aWon ? minuteB : minuteA;
        assertEquals(List.of(), loserCommands, "the loser ran no cryptsetup, mkfs or mount");

        // The loser keeps looking, once a minute, while the winner holds the volume.
        CompletableFuture<DataVolumeMounter.Outcome.Mounted> later = CompletableFuture.supplyAsync(() -> {
            try {
                return loser.runUntilMounted();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        loserMinute.release(2);
        assertTrue(Poll.until(Duration.ofSeconds(10), () -> loserSleeps.size() >= 3), loserSleeps.toString());
        assertTrue(loserSleeps.stream().allMatch(Duration.ofMinutes(1)::equals), loserSleeps.toString());
        assertTrue(!later.isDone(), "still waiting while the other node holds the volume");

        winner.release();
        loserMinute.release();
        assertEquals(dev.resolve("vdb"), later.get(10, TimeUnit.SECONDS).volume().device());
        assertTrue(loserCommands.contains("mount " + dir.resolve(aWon ? "db-b" : "db-a")), loserCommands.toString());
    }

    private static DataVolumeMounter.Outcome attempt(CountDownLatch go, DataVolumeMounter m) {
        try {
            go.await();
            return m.syncOnce();
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    // /dev/mapper/control can exist without the driver; the kernel's misc list says whether it is there.
    private static boolean hasDeviceMapper() throws IOException {
        Path misc = Path.of("/proc/misc");
        return Files.exists(misc) && Files.readString(misc).contains("device-mapper");
    }

    /** Polling helper for the race test. */
    static final class Poll {
        static boolean until(Duration timeout, java.util.function.BooleanSupplier condition) throws InterruptedException {
            long deadline = System.nanoTime() + timeout.toNanos();
            while (System.nanoTime() < deadline) {
                if (condition.getAsBoolean()) {
                    return true;
                }
                Thread.sleep(10);
            }
            return condition.getAsBoolean();
        }
    }

    @Test
    @DisplayName("with real cryptsetup on an image file: the volume is formatted and re-keyed to the cluster key; without device-mapper opening fails, the node says why and lets the volume go")
    void realCryptsetup() throws Exception {
        Assumptions.assumeTrue(Files.isExecutable(Path.of("/usr/sbin/cryptsetup")), "cryptsetup is not installed");
        Assumptions.assumeFalse(hasDeviceMapper(), "this host has device-mapper: opening would map and mount for real");
        Files.writeString(sys.resolve("class/block/vde1/uevent"), "DEVTYPE=partition\nPARTNAME=scratch\n");
        var runner = new ProcessCommandRunner();
        var outcome = mounter("db", runner, new ArrayList<>(), new Semaphore(0)).syncOnce();

        var waiting = assertInstanceOf(DataVolumeMounter.Outcome.Waiting.class, outcome);
        assertTrue(waiting.reason().contains("opening the state disk"), waiting.reason());
        String uuid = runner.run(List.of("cryptsetup", "luksUUID", dev.resolve("vdb").toString()), new byte[0]).stdout().strip();
        assertEquals(0, runner.run(List.of("cryptsetup", "open", "--test-passphrase", "--key-file", "-",
                dev.resolve("vdb").toString()), diskKey(uuid.toLowerCase())).exitCode(), "the cluster key opens it");
        try (var again = VolumeClaim.tryClaim(dev.resolve("vdb")).orElseThrow()) {
            assertTrue(again != null, "the claim was released after the failure");
        }
    }
}
