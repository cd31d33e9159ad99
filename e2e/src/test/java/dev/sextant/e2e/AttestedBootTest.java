package dev.sextant.e2e;

import dev.sextant.attestation.Purpose;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.sextant.attestation.eventlog.EventLogParser;
import dev.sextant.attestation.eventlog.EventLogReplay;
import dev.sextant.attestation.eventlog.RawEventLog;
import dev.sextant.attestation.eventlog.ReplayedEvent;
import dev.sextant.attestation.verify.AkTrust;
import dev.sextant.attestation.verify.AttestationRejected;
import dev.sextant.attestation.verify.AttestedState;
import dev.sextant.attestation.verify.DocumentVerifier;
import dev.sextant.attestation.verify.Reason;
import dev.sextant.attestation.verify.VerifierPolicy;
import dev.sextant.measuredboot.predict.PcrPredictor;
import dev.sextant.localcluster.image.UkiCmdlinePatch;
import dev.sextant.localcluster.qemu.FactoryTpm;
import dev.sextant.localcluster.qemu.HostTools;
import dev.sextant.localcluster.qemu.NodeConfig;
import dev.sextant.localcluster.qemu.QemuNode;
import dev.sextant.localcluster.verify.AtlsProbe;
import dev.sextant.measuredboot.predict.Prediction;
import dev.sextant.proto.v1.AttestationDocument;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The real boot: the image from {@code sextant image build} under QEMU/TCG + OVMF and a
 * factory-provisioned swtpm, verified over attested TLS against the PCRs predicted from the image
 * file alone. Three boots, each by a host that tries to change the node unseen: the image as built,
 * a copy whose UKI command line differs, and the image with a kernel command line extended by the host.
 */
@Tag("boot")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@DisplayName("A node booted from the built image")
class AttestedBootTest {
    private static final int GRPC_PORT = 7443;
    /** A boot under TCG is slow (docs/benchmarks.md: boot to a verified handshake); allow for a loaded CI machine. */
    private static final Duration BOOT_TIMEOUT = Duration.ofMinutes(8);
    private static final List<Integer> UKI_PCRS = List.of(4, 9, 11);
    private static final Pattern VERITY_SETUP = Pattern.compile("Finished .*Verity Protection Setup for root");
    private static final Pattern MISMATCHED_PCR = Pattern.compile("PCR (\\d+) \\(sha256\\)");
    /**
     * What a hostile host adds to the node's SMBIOS strings: a systemd credential that systemd-tmpfiles
     * would run as root, here writing this marker to the kernel log (and so to the console). With it a
     * host could as well write a modprobe helper or kernel settings into a node whose PCRs stay as measured.
     */
    private static final String HOST_INJECTED = "sextant-attack-host-tmpfiles-ran";
    private static final List<String> HOSTILE_OEM_STRINGS = List.of(
            "io.systemd.credential:tmpfiles.extra=w /dev/kmsg - - - - <3>" + HOST_INJECTED);
    /**
     * What a hostile host puts in the firmware's variable store (it owns that file, and can also boot
     * another OS in the VM once to write it): systemd reads its SystemdOptions variable as kernel
     * command-line options that no PCR shows; this one has systemd-run-generator run a root command.
     */
    private static final String FIRMWARE_INJECTED = "sextant-attack-host-systemdoptions-ran";
    private static final String HOSTILE_SYSTEMD_OPTIONS = "systemd.run=\"/bin/sh -c 'echo " + FIRMWARE_INJECTED
            + " > /dev/kmsg'\" systemd.run_success_action=none systemd.run_failure_action=none"
            // systemd.run would make the node boot into kernel-command-line.target only; the attack keeps it serving.
            + " systemd.unit=multi-user.target systemd.wants=kernel-command-line.service";
    private static final String SYSTEMD_VENDOR_GUID = "8cf2644b-4b0b-428f-9387-6d876050dc67";

    private final SecureRandom random = new SecureRandom();
    private HostTools tools;
    private Path image;
    private Path work;
    private FactoryTpm tpm;
    private Prediction prediction;
    private DocumentVerifier verifier;

    @BeforeAll
    void manufactureTpmAndPredict() throws Exception {
        image = BootImage.locateOrSkip("AttestedBootTest");
        List<String> missing = new ArrayList<>(HostTools.missing());
        missing.addAll(FactoryTpm.missingTools());
        missing.addAll(UkiCmdlinePatch.missingTools());
        if (HostTools.onPath("virt-fw-vars").isEmpty()) {
            missing.add("virt-fw-vars (python3-virt-firmware)");
        }
        if (!missing.isEmpty()) {
            System.out.println("SKIP AttestedBootTest: " + missing);
        }
        assumeTrue(missing.isEmpty(), () -> "host tools missing: " + missing);
        tools = HostTools.locate().orElseThrow();
        work = Path.of("target", "nodes", "attested-" + ProcessHandle.current().pid()).toAbsolutePath();
        tpm = FactoryTpm.manufacture(work.resolve("factory"));
        prediction = new PcrPredictor().predictImage(image);
        verifier = new DocumentVerifier(new VerifierPolicy(prediction.measurements(),
                AkTrust.ekCa(List.of(tpm.ca().certificate()))));
        UKI_PCRS.forEach(p -> System.out.println("AttestedBootTest: predicted PCR[" + p + "] = " + hex(prediction.pcr(p))));
    }

    @Test
    @DisplayName("is accepted over aTLS with exactly the predicted PCRs, its event log replays to them, and a host's systemd credential never runs on it")
    void acceptedWithPredictedPcrs() throws Exception {
        try (QemuNode node = boot(image, "accepted")) {
            byte[] nonce = nonce();
            AtlsProbe.Outcome outcome = new AtlsProbe(verifier).await(node, GRPC_PORT, nonce, BOOT_TIMEOUT);
            System.out.println("AttestedBootTest: boot-to-verify " + node.uptime().toSeconds() + " s (accepted boot; console "
                    + node.consoleLog() + ")");
            assertTrue(outcome.accepted().isPresent(), () -> "rejected: " + outcome.rejected().orElseThrow());
            assertPredicted(outcome.accepted().get().pcrs());

            AttestationDocument document = outcome.response().orElseThrow().getAttestation();
            AttestedState fromDocument = verifier.verify(document.toByteArray(), Purpose.VERIFY, nonce, new byte[0]);
            assertPredicted(fromDocument.pcrs());
            assertFalse(document.getEventLog().isEmpty(), "the node's attestation document carries no event log");
            assertEventLogReplays(document.getEventLog().toByteArray(), fromDocument.pcrs());
            assertTrue(node.console().lines().stream().anyMatch(l -> VERITY_SETUP.matcher(l).find()),
                    "the console shows no dm-verity setup of the root; see " + node.consoleLog());
            // The bootstrapper maps the class-data-sharing archive its training run wrote in the image build;
            // a JVM that cannot use it says so on the console, then starts about twice as slowly under TCG.
            assertTrue(node.console().lines().stream().noneMatch(l -> l.contains("Unable to use shared archive")),
                    "the bootstrapper could not use its class-data-sharing archive; see " + node.consoleLog());
            assertTrue(node.console().lines().stream().noneMatch(l -> l.contains(HOST_INJECTED)),
                    "a systemd credential from the host's SMBIOS strings ran as root on the node; see " + node.consoleLog());
            assertTrue(node.console().lines().stream().noneMatch(l -> l.contains(FIRMWARE_INJECTED)),
                    "systemd options from the host's UEFI variable store ran a root command on the node; see " + node.consoleLog());
            node.console().lines().stream().filter(l -> l.contains("Serving gRPC on port"))
                    .forEach(l -> System.out.println("AttestedBootTest: " + l.strip()));
        }
        assertBuildMeasurementsMatch();
    }

    /** {@code sextant image build} wrote measurements.json beside the image: it must be this very policy. */
    private void assertBuildMeasurementsMatch() throws Exception {
        Path written = image.resolveSibling("measurements.json");
        if (!Files.isRegularFile(written)) {
            System.out.println("AttestedBootTest: no " + written + " (image not from sextant image build); not compared");
            return;
        }
        // A set of this one image (format 2), versioned by the image's build time; its image must be the prediction.
        dev.sextant.attestation.policy.MeasurementSet set = dev.sextant.attestation.policy.MeasurementSet.parse(Files.readAllBytes(written));
        assertEquals(1, set.images().size(), written + " names more than the image beside it");
        assertEquals(new String(prediction.measurements().toJson(), StandardCharsets.UTF_8),
                new String(set.images().get(0).measurements().toJson(), StandardCharsets.UTF_8),
                written + " differs from the prediction for the image beside it");
    }

    @Test
    @DisplayName("is rejected with a PCR mismatch on exactly PCRs 4, 9 and 11 when only its UKI's command line differs")
    void rejectedWhenCmdlineDiffers() throws Exception {
        Path patched = work.resolve("cmdline/image.raw");
        UkiCmdlinePatch.copyWithCmdline(image, patched, "systemd.show_status=true", "systemd.show_status=1");
        try (QemuNode node = boot(patched, "cmdline")) {
            AtlsProbe.Outcome outcome = new AtlsProbe(verifier).await(node, GRPC_PORT, nonce(), BOOT_TIMEOUT);
            System.out.println("AttestedBootTest: boot-to-verify " + node.uptime().toSeconds() + " s (patched command line; console "
                    + node.consoleLog() + ")");
            assertTrue(outcome.rejected().isPresent(), "a node with another kernel command line was accepted");
            AttestationRejected rejected = outcome.rejected().get();
            System.out.println("AttestedBootTest: rejected as expected: " + rejected);
            assertEquals(Reason.PCR_MISMATCH, rejected.reason(), rejected::toString);
            assertEquals(new TreeSet<>(UKI_PCRS), mismatchedPcrs(rejected.getMessage()), rejected::toString);
        } finally {
            Files.deleteIfExists(patched); // a whole image, made anew by every run
        }
    }

    @Test
    @DisplayName("never runs with a kernel command line the host extended by an SMBIOS string unless PCR 12 shows it (and is then rejected)")
    void hostCommandLineExtensionNeverUnseen() throws Exception {
        // systemd-stub 254 reads io.systemd.stub.kernel-cmdline-extra; where it appends the string it also
        // measures it into PCR 12, which must be zero. This UKI's stub leaves its own command line as it is.
        String extra = "sextant.host-extra=1";
        try (QemuNode node = boot(image, "cmdline-extra", "io.systemd.stub.kernel-cmdline-extra=" + extra)) {
            AtlsProbe.Outcome outcome = new AtlsProbe(verifier).await(node, GRPC_PORT, nonce(), BOOT_TIMEOUT);
            if (outcome.rejected().isPresent()) {
                AttestationRejected rejected = outcome.rejected().get();
                System.out.println("AttestedBootTest: the stub took the host's extension and PCR 12 shows it: " + rejected);
                assertEquals(Reason.PCR_MISMATCH, rejected.reason(), rejected::toString);
                assertEquals(Set.of(12), mismatchedPcrs(rejected.getMessage()), rejected::toString);
            } else {
                List<String> commandLine = node.console().lines().stream().filter(l -> l.contains("Command line:")).toList();
                System.out.println("AttestedBootTest: accepted; the stub ignored the host's extension: " + commandLine);
                assertFalse(commandLine.isEmpty(), "the kernel printed no command line; see " + node.consoleLog());
                assertTrue(commandLine.stream().noneMatch(l -> l.contains(extra)),
                        "the host's extension reached the kernel command line and PCR 12 did not show it: " + commandLine);
            }
        }
    }

    /** Every boot is made by a hostile host: a systemd credential and SystemdOptions in its firmware, and more strings. */
    private QemuNode boot(Path disk, String name, String... moreOemStrings) throws Exception {
        Path nodeDir = work.resolve(name);
        Path state = tpm.copyStateTo(nodeDir.resolve("tpm-state"));
        List<String> oemStrings = new ArrayList<>(HOSTILE_OEM_STRINGS);
        oemStrings.addAll(List.of(moreOemStrings));
        return QemuNode.boot(NodeConfig.of(tools, disk, nodeDir, List.of(GRPC_PORT)).withTpmState(state)
                .withRawOemStrings(oemStrings).withFirmwareVariables(hostileFirmwareVariables(nodeDir)));
    }

    /** OVMF's variable store plus a SystemdOptions variable (UTF-16LE, non-volatile, boot and runtime access). */
    private Path hostileFirmwareVariables(Path nodeDir) throws Exception {
        Files.createDirectories(nodeDir);
        Path json = nodeDir.resolve("hostile-vars.json");
        Files.writeString(json, "{\"version\": 2, \"variables\": [{\"name\": \"SystemdOptions\", \"guid\": \""
                + SYSTEMD_VENDOR_GUID + "\", \"attr\": 7, \"data\": \""
                + hex(HOSTILE_SYSTEMD_OPTIONS.getBytes(StandardCharsets.UTF_16LE)) + "\"}]}");
        Path vars = nodeDir.resolve("hostile-OVMF_VARS.fd");
        Process p = new ProcessBuilder("virt-fw-vars", "-i", tools.ovmfVars().toString(), "-o", vars.toString(),
                "--set-json", json.toString()).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor(), () -> "virt-fw-vars failed: " + output);
        return vars;
    }

    private void assertPredicted(Map<Integer, byte[]> quoted) {
        for (int pcr : PcrPredictor.PCRS) {
            assertArrayEquals(prediction.pcr(pcr), quoted.get(pcr), "PCR " + pcr + " differs from the prediction");
        }
    }

    /** The verifier replays the log too; this states the property on its own, for PCRs 4, 9 and 11. */
    private static void assertEventLogReplays(byte[] eventLog, Map<Integer, byte[]> quoted) throws Exception {
        RawEventLog log = new EventLogParser().parse(eventLog);
        Map<Integer, byte[]> uki = new TreeMap<>();
        UKI_PCRS.forEach(p -> uki.put(p, quoted.get(p)));
        RawEventLog ukiEvents = new RawEventLog(log.digestSizes(),
                log.events().stream().filter(e -> uki.containsKey(e.pcrIndex())).toList());
        List<ReplayedEvent> replayed = new EventLogReplay().replay(ukiEvents, uki);
        assertEquals(new TreeSet<>(UKI_PCRS), new TreeSet<>(replayed.stream().map(ReplayedEvent::pcrIndex).toList()),
                "the event log does not extend each of PCRs 4, 9 and 11");
        System.out.println("AttestedBootTest: " + log.events().size() + " events in the node's log, "
                + replayed.size() + " replay to PCRs 4, 9 and 11");
    }

    private static Set<Integer> mismatchedPcrs(String message) {
        Set<Integer> pcrs = new TreeSet<>();
        Matcher m = MISMATCHED_PCR.matcher(message);
        while (m.find()) {
            pcrs.add(Integer.parseInt(m.group(1)));
        }
        return pcrs;
    }

    private byte[] nonce() {
        byte[] nonce = new byte[32];
        random.nextBytes(nonce);
        return nonce;
    }

    private static String hex(byte[] b) {
        return java.util.HexFormat.of().formatHex(b);
    }
}
