package dev.sextant.nodeboot.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.sextant.etcd.client.EtcdClient;
import dev.sextant.etcd.testkit.Tmpfs;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A control plane's etcd member whose data dir is the control plane's data volume: a file system of its
 * own mounted on {@link ControlPlaneEtcd#dataDir}, as node-boot's bring-up mounts the volume before etcd
 * starts. The volume is a tmpfs of the test (standing for the opened LUKS volume's ext4, lost+found
 * included), bind-mounted on the data dir and unmounted again at each "power-off", so the test sees what
 * lies on the state disk underneath. Real etcd from the deployer's files, through the image's unit;
 * mounting needs root, so the mounting tests are skipped (saying why) without it. Fails, never skips,
 * without /usr/bin/etcd.
 */
@DisplayName("A control plane's etcd member on its data volume, for real")
class ControlPlaneEtcdVolumeTest {
    private static final String KEY = "/sextant/v1/cluster/control-planes";

    @TempDir(factory = Tmpfs.class)
    Path dir;

    private final byte[] secret = random();
    private final byte[] salt = random();
    private final List<Path> mounted = new ArrayList<>();
    private final ListAppender<ILoggingEvent> log = new ListAppender<>();
    private final Logger etcdLog = (Logger) org.slf4j.LoggerFactory.getLogger(ControlPlaneEtcd.class);

    private static byte[] random() {
        byte[] b = new byte[32];
        new SecureRandom().nextBytes(b);
        return b;
    }

    @BeforeEach
    void captureLog() {
        log.start();
        etcdLog.addAppender(log);
    }

    @AfterEach
    void unmountAll() throws Exception {
        etcdLog.detachAppender(log);
        for (int i = mounted.size() - 1; i >= 0; i--) {
            run("umount", "-l", mounted.get(i).toString());
        }
    }

    private ServicesInput input() throws Exception {
        return DeployInputs.input(DeployInputs.signed(dir.resolve("m"), DeployInputs.MEASUREMENTS), secret, salt);
    }

    private List<String> logLines() {
        return log.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
    }

    private static void requireRoot() throws Exception {
        Assumptions.assumeTrue("0".equals(new String(new ProcessBuilder("id", "-u").start().getInputStream().readAllBytes(),
                StandardCharsets.US_ASCII).strip()), "mounting a stand-in data volume needs root");
    }

    private static void run(String... argv) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(argv).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0) {
            throw new IOException(String.join(" ", argv) + " failed: " + out);
        }
    }

    /** The volume's own file system: a tmpfs that outlives every power cycle of the test, root 0755 with lost+found as mkfs.ext4 leaves it. */
    private Path volume() throws Exception {
        Path volume = Files.createDirectories(dir.resolve("volume"));
        run("mount", "-t", "tmpfs", "-o", "size=256m,mode=0755", "sextant-test-volume", volume.toString());
        mounted.add(volume);
        Files.createDirectory(volume.resolve("lost+found"));
        return volume;
    }

    /** Bring-up's step: the volume mounted on etcd's data dir (on the state disk, where the mount point is made). */
    private void mountOn(Path volume, Path dataDir) throws Exception {
        Files.createDirectories(dataDir);
        run("mount", "--bind", volume.toString(), dataDir.toString());
        mounted.add(dataDir);
    }

    private void unmount(Path dataDir) throws Exception {
        run("umount", dataDir.toString());
        mounted.remove(dataDir);
    }

    @Test
    @DisplayName("with a data volume mounted on etcd's data dir: the member writes its data there (the dir made 0700, lost+found left alone), nothing of it lands on the state disk, the log says the volume, and after a power cycle the member starts on the volume again with everything there")
    void memberOnTheVolume() throws Exception {
        requireRoot();
        try (RealEtcdNode node = new RealEtcdNode(dir.resolve("node"))) {
            Path dataDir = new ControlPlaneEtcd(node.settings).dataDir();
            Path volume = volume();
            mountOn(volume, dataDir);

            DeployedServices deployed = node.services.deploy(input());

            assertEquals(EtcdStanding.MEMBER, deployed.etcd(), deployed.summary());
            try (EtcdClient join = node.joinServiceClient()) {
                join.put(KEY, "5");
            }
            assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(dataDir)));
            assertTrue(Files.isDirectory(volume.resolve("member/wal")), "etcd's log is on the volume");
            assertTrue(Files.isDirectory(volume.resolve("lost+found")), "etcd leaves the file system's own directory alone");
            assertTrue(logLines().contains("etcd's data dir " + dataDir + " is this control plane's data volume"), logLines().toString());
            String etcdOutput = Files.readString(node.systemd.log());
            assertFalse(etcdOutput.contains("\"level\":\"error\"") || etcdOutput.contains("\"level\":\"fatal\""), etcdOutput);

            node.systemd.stop(); // power-off: etcd stops, the volume is unmounted with the node
            unmount(dataDir);
            try (var onStateDisk = Files.list(dataDir)) {
                assertEquals(List.of(), onStateDisk.toList(), "nothing of etcd's data is on the state disk");
            }
            mountOn(volume, dataDir); // the next boot's bring-up finds and mounts the volume again

            DeployedServices again = node.services.restart();

            assertEquals(EtcdStanding.MEMBER, again.etcd(), again.summary());
            try (EtcdClient join = node.joinServiceClient()) {
                assertEquals(Optional.of("5"), join.get(KEY), "what the member wrote came back with the volume");
            }
            assertTrue(Files.readString(node.systemd.log()).contains("\"msg\":\"restarting local member\""),
                    "the second start found its data on the volume");
        }
    }

    @Test
    @DisplayName("without a data volume: the member's data dir is a directory of the state disk, and the log says so")
    void memberOnTheStateDisk() throws Exception {
        try (RealEtcdNode node = new RealEtcdNode(dir.resolve("node"))) {
            Path dataDir = new ControlPlaneEtcd(node.settings).dataDir();

            DeployedServices deployed = node.services.deploy(input());

            assertEquals(EtcdStanding.MEMBER, deployed.etcd(), deployed.summary());
            assertFalse(ControlPlaneEtcd.onOwnFileSystem(dataDir));
            assertTrue(Files.isDirectory(dataDir.resolve("member/wal")));
            assertTrue(logLines().contains("etcd's data dir " + dataDir + " is on the state disk: this control plane has no data volume"),
                    logLines().toString());
        }
    }
}
