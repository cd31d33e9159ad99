package dev.sextant.imagebuilder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The image's {@code import-settings} (run by sextant-settings.service before the bootstrapper): the
 * only way the host configures a node. It reads the SMBIOS type 11 entries as the kernel exposes
 * them, so each row writes such entries and runs the script itself.
 */
@DisplayName("The node's import of host settings")
class HostSettingsImportTest {
    private static final Path SCRIPT = Path.of("..", "mkosi", "mkosi.extra", "usr", "libexec", "sextant", "import-settings");

    @TempDir
    Path dir;

    @Test
    @DisplayName("writes each Sextant setting to a file of its own, the base64 form decoded, owner-only")
    void takesSextantSettings() throws Exception {
        String pem = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";
        Run run = run(List.of("dev.sextant.setting:sextant.node-name=worker-0",
                "dev.sextant.setting:sextant.join-endpoints=10.0.2.2:4000,10.0.2.2:4001"),
                List.of("dev.sextant.setting.binary:sextant.ek-ca="
                        + Base64.getEncoder().encodeToString(pem.getBytes(StandardCharsets.UTF_8))));
        assertEquals("worker-0", run.setting("sextant.node-name"));
        assertEquals("10.0.2.2:4000,10.0.2.2:4001", run.setting("sextant.join-endpoints"));
        assertEquals(pem, run.setting("sextant.ek-ca"));
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(run.out)));
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(run.out.resolve("sextant.ek-ca"))));
    }

    @Test
    @DisplayName("takes nothing from systemd credential strings or other vendors' strings: a host-chosen tmpfiles.extra goes nowhere")
    void ignoresForeignStrings() throws Exception {
        Run run = run(List.of("io.systemd.credential:tmpfiles.extra=w /dev/kmsg - - - - injected",
                "io.systemd.credential.binary:sextant.node-name=d29ya2VyLTA=", "QEMU OEM string"));
        assertEquals(List.of(), run.files());
    }

    @Test
    @DisplayName("refuses names the bootstrapper does not read, so no name reaches outside the settings directory")
    void refusesUnknownNames() throws Exception {
        Run run = run(List.of("dev.sextant.setting:../escaped=x", "dev.sextant.setting:sextant.node-name/../../x=y",
                "dev.sextant.setting:tmpfiles.extra=z", "dev.sextant.setting:sextant.node-name"));
        assertEquals(List.of(), run.files());
        assertFalse(Files.exists(dir.resolve("escaped")) || Files.exists(dir.resolve("x")));
        assertEquals(3, run.output.split("unknown setting name", -1).length - 1, run.output);
        assertTrue(run.output.contains("without '='"), run.output);
    }

    @Test
    @DisplayName("keeps the first of a setting given twice, also across entries, and says so")
    void keepsFirstOfTwice() throws Exception {
        Run run = run(List.of("dev.sextant.setting:sextant.node-name=first"),
                List.of("dev.sextant.setting:sextant.node-name=second"));
        assertEquals("first", run.setting("sextant.node-name"));
        assertTrue(run.output.contains("sextant.node-name given more than once"), run.output);
    }

    @Test
    @DisplayName("ignores a base64 value that does not decode, and prints names, never values")
    void badBase64AndNoValuesPrinted() throws Exception {
        Run run = run(List.of("dev.sextant.setting.binary:sextant.ek-ca=***not base64***",
                "dev.sextant.setting:sextant.init-secret-hash=sha256:00112233445566778899aabbccddeeff:abcd"));
        assertEquals(List.of("sextant.init-secret-hash"), run.files());
        assertTrue(run.output.contains("sextant.ek-ca is not valid base64"), run.output);
        assertFalse(run.output.contains("00112233") || run.output.contains("not base64***"), run.output);
    }

    @Test
    @DisplayName("writes a joining control plane's settings to bootstrapper.env, the environment of sextant-node.service")
    void controlPlaneSettingsBecomeEnvironment() throws Exception {
        Run run = run(List.of("dev.sextant.setting:sextant.control-plane=true",
                "dev.sextant.setting:sextant.etcd-advertise=10.0.2.2:40001:40002"));
        assertEquals("SEXTANT_CONTROL_PLANE=true\nSEXTANT_ETCD_ADVERTISE_HOST=10.0.2.2\n"
                + "SEXTANT_ETCD_ADVERTISE_PEER_PORT=40001\nSEXTANT_ETCD_ADVERTISE_CLIENT_PORT=40002\n",
                run.setting("bootstrapper.env"));
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(run.out.resolve("bootstrapper.env"))));
    }

    @Test
    @DisplayName("writes the advertised VerifyService endpoint (the host's forward, where re-attestation asks) to bootstrapper.env")
    void verifyAdvertiseBecomesEnvironment() throws Exception {
        Run run = run(List.of("dev.sextant.setting:sextant.verify-advertise=10.0.2.2:41234"));
        assertEquals("SEXTANT_NODE_JOIN_VERIFY_ADVERTISE=10.0.2.2:41234\n", run.setting("bootstrapper.env"));
    }

    @Test
    @DisplayName("switches a control plane's data volume on, for the zone given, in bootstrapper.env")
    void dataVolumeZoneBecomesEnvironment() throws Exception {
        Run run = run(List.of("dev.sextant.setting:sextant.control-plane=true",
                "dev.sextant.setting:sextant.data-volume-zone=z1"));
        assertEquals("SEXTANT_CONTROL_PLANE=true\nSEXTANT_DATA_VOLUME=true\nSEXTANT_ZONE=z1\n",
                run.setting("bootstrapper.env"));
    }

    @Test
    @DisplayName("writes the etcd member's heartbeat, in milliseconds, to bootstrapper.env")
    void etcdHeartbeatBecomesEnvironment() throws Exception {
        Run run = run(List.of("dev.sextant.setting:sextant.etcd-heartbeat-ms=500"));
        assertEquals("SEXTANT_ETCD_HEARTBEAT=500ms\n", run.setting("bootstrapper.env"));
    }

    @Test
    @DisplayName("takes a DNS name as the advertised etcd host")
    void advertisedDnsName() throws Exception {
        Run run = run(List.of("dev.sextant.setting:sextant.etcd-advertise=etcd-control-plane-1.internal.sextant:2380:2379"));
        assertEquals("SEXTANT_ETCD_ADVERTISE_HOST=etcd-control-plane-1.internal.sextant\n"
                + "SEXTANT_ETCD_ADVERTISE_PEER_PORT=2380\nSEXTANT_ETCD_ADVERTISE_CLIENT_PORT=2379\n",
                run.setting("bootstrapper.env"));
    }

    @Test
    @DisplayName("ignores every control-plane, etcd, verify-advertise, data-volume zone or etcd heartbeat value that is not exactly of its form, so no host line reaches the environment")
    void refusesMalformedEnvironmentValues() throws Exception {
        List<String> bad = List.of("sextant.control-plane=yes", "sextant.control-plane=true ", "sextant.control-plane=",
                "sextant.etcd-advertise=10.0.2.2:40001", "sextant.etcd-advertise=10.0.2.2:40001:40002:1",
                "sextant.etcd-advertise=10.0.2.2:0:2379", "sextant.etcd-advertise=10.0.2.2:65536:2379",
                "sextant.etcd-advertise=10.0.2.2:02380:2379", "sextant.etcd-advertise=10.0.2.2:2380:2379x",
                "sextant.etcd-advertise=:2380:2379", "sextant.etcd-advertise=-host:2380:2379",
                "sextant.etcd-advertise=Host:2380:2379", "sextant.etcd-advertise=a b:2380:2379",
                "sextant.etcd-advertise=h;SEXTANT_X=1:2380:2379", "sextant.etcd-advertise=h$(id):2380:2379",
                "sextant.verify-advertise=10.0.2.2", "sextant.verify-advertise=10.0.2.2:1:2", "sextant.verify-advertise=10.0.2.2:0",
                "sextant.verify-advertise=h;SEXTANT_X=1:7443", "sextant.verify-advertise=h$(id):7443",
                "sextant.data-volume-zone=", "sextant.data-volume-zone=Z1", "sextant.data-volume-zone=z1 ",
                "sextant.data-volume-zone=-z1", "sextant.data-volume-zone=z1-", "sextant.data-volume-zone=z:1",
                "sextant.data-volume-zone=z1;SEXTANT_X=1", "sextant.data-volume-zone=z$(id)",
                "sextant.data-volume-zone=../z", "sextant.data-volume-zone=" + "z".repeat(33),
                "sextant.etcd-heartbeat-ms=", "sextant.etcd-heartbeat-ms=0", "sextant.etcd-heartbeat-ms=0500",
                "sextant.etcd-heartbeat-ms=5001", "sextant.etcd-heartbeat-ms=99999", "sextant.etcd-heartbeat-ms=500ms",
                "sextant.etcd-heartbeat-ms=-1", "sextant.etcd-heartbeat-ms=500;SEXTANT_X=1", "sextant.etcd-heartbeat-ms=$(id)");
        for (String setting : bad) {
            Path before = dir;
            dir = Files.createTempDirectory(before, "case");
            Run run = run(List.of("dev.sextant.setting:" + setting));
            assertEquals(List.of(), run.files(), setting);
            assertTrue(run.output.contains("has an invalid value; ignored"), setting + ": " + run.output);
            dir = before;
        }
    }

    @Test
    @DisplayName("takes the control-plane settings in text form only")
    void refusesBinaryControlPlaneSettings() throws Exception {
        Run run = run(List.of("dev.sextant.setting.binary:sextant.control-plane="
                + Base64.getEncoder().encodeToString("true".getBytes(StandardCharsets.UTF_8))));
        assertEquals(List.of(), run.files());
    }

    @Test
    @DisplayName("writes no bootstrapper.env for a node without those settings")
    void noEnvironmentWithoutSettings() throws Exception {
        Run run = run(List.of("dev.sextant.setting:sextant.node-name=worker-0"));
        assertEquals(List.of("sextant.node-name"), run.files());
    }

    private record Run(Path out, String output) {
        String setting(String name) throws Exception {
            return Files.readString(out.resolve(name));
        }

        List<String> files() throws Exception {
            if (!Files.isDirectory(out)) {
                return List.of();
            }
            try (Stream<Path> files = Files.list(out)) {
                return files.map(p -> p.getFileName().toString()).sorted().toList();
            }
        }
    }

    /** One SMBIOS type 11 entry per list, as /sys/firmware/dmi/entries/11-N/raw, then the script. */
    @SafeVarargs
    private Run run(List<String>... entries) throws Exception {
        Path sys = dir.resolve("entries");
        for (int i = 0; i < entries.length; i++) {
            Path entry = Files.createDirectories(sys.resolve("11-" + i));
            Files.write(entry.resolve("raw"), oemStrings(entries[i]));
        }
        Path out = dir.resolve("settings");
        ProcessBuilder pb = new ProcessBuilder("sh", SCRIPT.toString()).redirectErrorStream(true);
        pb.environment().put("SEXTANT_DMI_ENTRIES", sys.toString());
        pb.environment().put("SEXTANT_SETTINGS_DIR", out.toString());
        Process p = pb.start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), output);
        return new Run(out, output);
    }

    /** SMBIOS structure type 11: type, formatted length 5, handle, string count, then the NUL-ended strings. */
    private static byte[] oemStrings(List<String> strings) {
        ByteArrayOutputStream raw = new ByteArrayOutputStream();
        List<String> nonEmpty = new ArrayList<>(strings.stream().filter(s -> !s.isEmpty()).toList());
        raw.writeBytes(new byte[] {11, 5, 0x10, 0, (byte) nonEmpty.size()});
        for (String s : nonEmpty) {
            raw.writeBytes(s.getBytes(StandardCharsets.UTF_8));
            raw.write(0);
        }
        raw.write(0);
        return raw.toByteArray();
    }
}
