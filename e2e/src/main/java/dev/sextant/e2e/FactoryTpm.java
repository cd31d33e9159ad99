package dev.sextant.e2e;

import dev.sextant.tpm.command.TpmClient;
import dev.sextant.tpm.provision.AkProvisioner;
import dev.sextant.tpm.swtpm.LocalCa;
import dev.sextant.tpm.swtpm.SwtpmManufacturer;
import dev.sextant.tpm.transport.TpmTarget;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * A node's TPM as it leaves the "factory": swtpm_setup state with an EK certificate from a fresh
 * {@link LocalCa}, and the AK certificate (issued by the same CA) in NV 0x01381001. Provisioning
 * talks to a short-lived swtpm on loopback TCP (swtpm serves one connection, and QEMU needs the
 * state afterwards), so the state directory is ready for {@link NodeConfig#withTpmState(Path)}.
 */
public record FactoryTpm(LocalCa ca, Path stateDir, X509Certificate akCertificate) {
    private static final Duration LISTEN_TIMEOUT = Duration.ofSeconds(10);

    /** Skip reasons for the swtpm tools this needs (empty when all are on PATH). */
    public static List<String> missingTools() {
        return List.of("swtpm_setup", "swtpm_localca").stream()
                .filter(t -> HostTools.onPath(t).isEmpty())
                .map(t -> t + " not on PATH (Debian package swtpm-tools)")
                .toList();
    }

    /** Manufactures and provisions a TPM state under {@code dir} ({@code dir/ca}, {@code dir/state}). */
    public static FactoryTpm manufacture(Path swtpm, Path dir) throws Exception {
        Path abs = Files.createDirectories(dir).toAbsolutePath().normalize();
        LocalCa ca = LocalCa.create(abs.resolve("ca"), "Sextant E2E EK CA");
        SwtpmManufacturer.manufacture(abs, ca);
        Path state = abs.resolve("state");
        X509Certificate ak = provision(swtpm, state, ca, abs.resolve("provision.log"));
        return new FactoryTpm(ca, state, ak);
    }

    /** A copy of the state for a second node, so each boot starts from the same factory TPM. */
    public Path copyStateTo(Path dir) throws IOException {
        Path target = Files.createDirectories(dir).toAbsolutePath().normalize();
        try (var files = Files.list(stateDir)) {
            for (Path f : files.toList()) {
                Files.copy(f, target.resolve(f.getFileName()));
            }
        }
        return target;
    }

    private static X509Certificate provision(Path swtpm, Path state, LocalCa ca, Path log) throws Exception {
        int port = FreePort.pick();
        int ctrl = FreePort.pick();
        Process process = new ProcessBuilder(swtpm.toString(), "socket", "--tpm2",
                "--tpmstate", "dir=" + state + ",mode=0600",
                "--server", "type=tcp,port=" + port + ",bindaddr=127.0.0.1",
                "--ctrl", "type=tcp,port=" + ctrl + ",bindaddr=127.0.0.1",
                "--flags", "not-need-init,startup-clear")
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            awaitListening(process, ctrl, log);
            awaitListening(process, port, log);
            try (TpmClient client = TpmClient.open(TpmTarget.parse("swtpm:127.0.0.1:" + port))) {
                return new AkProvisioner(client, ca.certificate(), ca.key()).provision();
            }
        } finally {
            // SIGTERM: swtpm has written its NV state on every change; nothing is lost by stopping.
            ProcessStopper.stop(process, 5000);
        }
    }

    // The probe connection is closed at once, handing swtpm's single data connection back.
    private static void awaitListening(Process process, int port, Path log) throws IOException {
        Instant deadline = Instant.now().plus(LISTEN_TIMEOUT);
        while (true) {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 200);
                return;
            } catch (IOException notYet) {
                if (!process.isAlive() || Instant.now().isAfter(deadline)) {
                    throw new IOException("provisioning swtpm did not listen on 127.0.0.1:" + port
                            + " within " + LISTEN_TIMEOUT + "; see " + log);
                }
                SwtpmProcess.sleep(20);
            }
        }
    }
}
