package dev.sextant.e2e;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.sextant.attestation.eventlog.EventLogParser;
import dev.sextant.attestation.eventlog.EventLogReplay;
import dev.sextant.attestation.eventlog.RawEvent;
import dev.sextant.attestation.eventlog.RawEventLog;
import dev.sextant.attestation.eventlog.ReplayedEvent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Boots the image from scripts/build-image.sh once under QEMU/TCG + OVMF + swtpm and reads the
 * node's console report. Everything is checked from that one boot (boots cost about a minute).
 */
@Tag("boot")
@DisplayName("A node booted from the built image")
class NodeBootTest {
    /** platform.md: ~45 s to a verity root under TCG; allow for a loaded CI machine. */
    private static final Duration BOOT_TIMEOUT = Duration.ofMinutes(6);
    /** systemd-veritysetup@root opened the verity device, and the kernel mounted erofs from device-mapper. */
    private static final Pattern VERITY_SETUP = Pattern.compile("Finished .*Verity Protection Setup for root");
    private static final Pattern ROOT_ON_DM = Pattern.compile("erofs: \\(device dm-\\d+\\): mounted");

    @Test
    @DisplayName("mounts its dm-verity root, leaves PCRs 12, 13 and 15 at zero, and prints PCRs 4, 9, 11 that its event log replays to")
    void bootsAndReportsPcrs() throws Exception {
        Path image = imageOrSkip();
        HostTools tools = HostTools.locate().orElse(null);
        if (tools == null) {
            System.out.println("SKIP NodeBootTest: " + HostTools.missing());
        }
        assumeTrue(tools != null, () -> "host tools missing: " + HostTools.missing());
        Path work = Path.of("target", "nodes", "boot-" + ProcessHandle.current().pid()).toAbsolutePath();

        try (QemuNode node = QemuNode.boot(NodeConfig.of(tools, image, work, List.of(7443)))) {
            node.awaitConsole(PcrConsoleReport.DONE, BOOT_TIMEOUT);
            Duration bootTime = node.uptime();
            List<String> console = node.console().lines();
            PcrConsoleReport report = PcrConsoleReport.parse(console);

            System.out.println("NodeBootTest: PCR lines after " + bootTime.toSeconds() + " s (console: "
                    + node.consoleLog() + ")");
            for (int pcr : List.of(4, 9, 11, 12, 13, 15)) {
                System.out.println("NodeBootTest: PCR[" + pcr + "] sha256 = " + report.pcrHex(pcr));
            }
            System.out.println("NodeBootTest: event log " + report.eventLog().map(l -> l.length + " bytes").orElse("absent"));

            assertTrue(console.stream().anyMatch(l -> VERITY_SETUP.matcher(l).find()),
                    "the console shows no dm-verity setup of the root; see " + node.consoleLog());
            assertTrue(console.stream().anyMatch(l -> ROOT_ON_DM.matcher(l).find()),
                    "the console shows no erofs root mounted from a device-mapper device; see " + node.consoleLog());
            assertTrue(console.stream().noneMatch(l -> l.contains("SEXTANT-PCR-ERROR")),
                    "the node found no TPM; see " + node.consoleLog());
            for (int pcr : List.of(12, 13, 15)) {
                assertArrayEquals(new byte[32], report.pcr(pcr), "PCR " + pcr + " must stay zero at boot");
            }
            for (int pcr : List.of(4, 9, 11)) {
                assertFalse(java.util.Arrays.equals(new byte[32], report.pcr(pcr)),
                        "PCR " + pcr + " is extended by the firmware and the UKI's stub");
            }
            assertTrue(report.eventLog().isPresent(), "the node printed no firmware event log");
            Path saved = Files.write(node.workDir().resolve("binary_bios_measurements"), report.eventLog().get());
            System.out.println("NodeBootTest: event log saved to " + saved);
            assertEventLogReplays(report);
        }
    }

    /** The firmware log, replayed for the printed PCRs only, must give the values the node printed. */
    private static void assertEventLogReplays(PcrConsoleReport report) throws Exception {
        RawEventLog log = new EventLogParser().parse(report.eventLog().orElseThrow());
        List<RawEvent> printed = log.events().stream()
                .filter(e -> report.pcrs().containsKey(e.pcrIndex()))
                .toList();
        List<ReplayedEvent> replayed = new EventLogReplay()
                .replay(new RawEventLog(log.digestSizes(), printed), report.pcrs());
        System.out.println("NodeBootTest: " + replayed.size() + " events replay to PCRs 4, 9 and 11 "
                + replayed.stream().map(e -> Integer.toString(e.pcrIndex())).distinct().toList());
    }

    private static Path imageOrSkip() {
        String configured = System.getProperty("sextant.image", "");
        Optional<Path> image = configured.isBlank() ? defaultImage() : Optional.of(Path.of(configured));
        boolean present = image.filter(Files::isReadable).isPresent();
        String reason = "no node image at " + image.map(Path::toString).orElse("<repo>/.build/image/image.raw")
                + "; build it with scripts/build-image.sh (or pass -Dsextant.image=...)";
        if (!present) {
            System.out.println("SKIP NodeBootTest: " + reason);
        }
        assumeTrue(present, reason);
        return image.get();
    }

    /** The repository root is the nearest ancestor holding mkosi/mkosi.conf. */
    private static Optional<Path> defaultImage() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.exists(dir.resolve("mkosi/mkosi.conf"))) {
                return Optional.of(dir.resolve(".build/image/image.raw"));
            }
        }
        return Optional.empty();
    }
}
