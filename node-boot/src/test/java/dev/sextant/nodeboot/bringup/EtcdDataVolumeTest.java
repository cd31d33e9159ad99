package dev.sextant.nodeboot.bringup;

import dev.sextant.etcd.process.EtcdMemberConfig;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.sextant.diskcrypt.CommandRunner;
import dev.sextant.diskcrypt.FakeLuks;
import dev.sextant.housekeeping.volumes.DataVolumeSettings;
import dev.sextant.housekeeping.volumes.DataVolumes;
import dev.sextant.nodeboot.deploy.ControlPlaneEtcd;
import dev.sextant.nodeboot.deploy.NodeLocalSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Where a control plane's etcd data goes at bring-up: its data volume, found by its tag in a fake sysfs
 * (the device an image file, its claim a real lock), opened through {@link FakeLuks} (this host has no
 * device-mapper; every command is recorded), mounted on etcd's data dir; or the state disk. What etcd then
 * does on a mounted volume runs for real in {@code ControlPlaneEtcdVolumeTest}.
 */
@DisplayName("A control plane's data volume at bring-up: mounted on etcd's data dir, or etcd's data stays on the state disk")
class EtcdDataVolumeTest {
    @TempDir
    Path dir;

    private Path dataDir;
    private final List<List<String>> commands = new CopyOnWriteArrayList<>();
    private final FakeLuks luks = new FakeLuks();
    private final CommandRunner runner = (argv, stdin) -> {
        commands.add(List.copyOf(argv));
        return luks.run(argv, stdin);
    };
    private final ListAppender<ILoggingEvent> log = new ListAppender<>();
    private final Logger volumeLog = (Logger) org.slf4j.LoggerFactory.getLogger(EtcdDataVolume.class);

    @BeforeEach
    void node() throws Exception {
        NodeLocalSettings services = new NodeLocalSettings(dir.resolve("state/sextant/services"), Path.of("/run/sextant/kms/kms.sock"), 9090, "",
                Duration.ofSeconds(5), 2379, 2380, "", 0, 0, "test", dir.resolve("hosts"), EtcdMemberConfig.DEFAULT_HEARTBEAT);
        dataDir = ControlPlaneEtcd.dataDir(services);
        Files.createDirectories(dir.resolve("sys/block/vdb"));
        Files.writeString(dir.resolve("sys/block/vdb/serial"), "sx1:test:cp:z1:m1\n");
        Files.createDirectories(dir.resolve("dev"));
        Files.write(dir.resolve("dev/vdb"), new byte[4096]);
        log.start();
        volumeLog.addAppender(log);
    }

    @AfterEach
    void detach() {
        volumeLog.detachAppender(log);
    }

    private EtcdDataVolume volume(boolean enabled) {
        return new EtcdDataVolume(new DataVolumes(new DataVolumeSettings(enabled, "test", "cp", "z1", dir.resolve("sys"),
                dir.resolve("dev"), dir.resolve("unused-mount-point"), "sextant-data", dir.resolve("run/luks-data"),
                Duration.ofMinutes(1), 8192, 4), runner), dataDir);
    }

    private List<String> logLines() {
        return log.list.stream().map(e -> e.getLevel() + " " + e.getFormattedMessage()).toList();
    }

    @Test
    @DisplayName("data volumes on: the volume tagged for this cluster, role and zone is opened and mounted on etcd's data dir (the directory etcd's command line names), nowhere else")
    void volumeMountedOnEtcdsDataDir() throws Exception {
        Optional<String> mounted = volume(true).mount(uuid -> new byte[32]);

        assertTrue(mounted.isPresent());
        assertTrue(mounted.get().contains("sx1:test:cp:z1:m1") && mounted.get().endsWith("mounted at " + dataDir + " (etcd's data)"),
                mounted.get());
        List<List<String>> mounts = commands.stream().filter(c -> c.get(0).equals("mount")).toList();
        assertEquals(List.of(List.of("mount", "-o", "nosuid,nodev", "/dev/mapper/sextant-data", dataDir.toString())), mounts);
    }

    @Test
    @DisplayName("data volumes off: nothing is looked for or mounted, and the log says etcd's data stays on the state disk")
    void noVolume() throws Exception {
        assertEquals(Optional.empty(), volume(false).mount(uuid -> new byte[32]));

        assertEquals(List.of(), commands);
        assertTrue(logLines().contains("INFO No data volume (sextant.data-volume.enabled is off): etcd's data stays on the state disk, in "
                + dataDir), logLines().toString());
    }

    @Test
    @DisplayName("data volumes on, but a member's data already in etcd's data dir on the state disk (it started before the node had a volume): no volume is mounted over it (etcd would start an empty member under the same name), and the log warns")
    void memberAlreadyOnTheStateDisk() throws Exception {
        Files.createDirectories(dataDir.resolve("member/wal"));

        assertEquals(Optional.empty(), volume(true).mount(uuid -> new byte[32]));

        assertEquals(List.of(), commands, "the volume is not even opened");
        assertTrue(logLines().stream().anyMatch(l -> l.startsWith("WARN etcd's member started on the state disk (" + dataDir + ")")),
                logLines().toString());
    }
}
