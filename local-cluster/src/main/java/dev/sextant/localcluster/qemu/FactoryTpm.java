package dev.sextant.localcluster.qemu;

import dev.sextant.tpm.command.TpmClient;
import dev.sextant.tpmmanufacturer.provision.AkProvisioner;
import dev.sextant.tpmmanufacturer.swtpm.LocalCa;
import dev.sextant.tpmmanufacturer.swtpm.SwtpmManufacturer;
import dev.sextant.tpmmanufacturer.swtpm.SwtpmServer;
import dev.sextant.tpm.transport.TpmTarget;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.util.List;

/**
 * A node's TPM as it leaves the "factory": swtpm_setup state with an EK certificate from a fresh
 * {@link LocalCa}, and the AK certificate (issued by the same CA) in NV 0x01381001. Provisioning
 * talks to a short-lived swtpm on loopback TCP (swtpm serves one connection, and QEMU needs the
 * state afterwards), so the state directory is ready for {@link NodeConfig#withTpmState(Path)}.
 */
public record FactoryTpm(LocalCa ca, Path stateDir, X509Certificate akCertificate) {
    /** Skip reasons for the swtpm tools this needs (empty when all are on PATH). */
    public static List<String> missingTools() {
        return List.of("swtpm_setup", "swtpm_localca").stream()
                .filter(t -> HostTools.onPath(t).isEmpty())
                .map(t -> t + " not on PATH (Debian package swtpm-tools)")
                .toList();
    }

    /** Manufactures and provisions a TPM state under {@code dir} ({@code dir/ca}, {@code dir/state}). */
    public static FactoryTpm manufacture(Path dir) throws Exception {
        Path abs = Files.createDirectories(dir).toAbsolutePath().normalize();
        return manufacture(abs, LocalCa.create(abs.resolve("ca"), "Sextant E2E EK CA"));
    }

    /**
     * Manufactures and provisions a TPM state under {@code dir/state} whose EK and AK certificates
     * {@code ca} issues, so several nodes' TPMs chain to one CA (one {@code --ek-ca} for a cluster).
     */
    public static FactoryTpm manufacture(Path dir, LocalCa ca) throws Exception {
        Path abs = Files.createDirectories(dir).toAbsolutePath().normalize();
        SwtpmManufacturer.manufacture(abs, ca);
        Path state = abs.resolve("state");
        X509Certificate ak = provision(state, ca, abs.resolve("provision.log"));
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

    // swtpm serves one connection, and QEMU needs the state afterwards: provision over a short-lived
    // loopback server, then stop it.
    private static X509Certificate provision(Path state, LocalCa ca, Path log) throws Exception {
        try (SwtpmServer server = SwtpmServer.start(state, log);
             TpmClient client = TpmClient.open(TpmTarget.parse(server.target()))) {
            return new AkProvisioner(client, ca.certificate(), ca.key()).provision();
        }
    }
}
