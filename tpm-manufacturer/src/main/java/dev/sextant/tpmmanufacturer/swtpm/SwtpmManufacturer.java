package dev.sextant.tpmmanufacturer.swtpm;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * Creates an emulated TPM's state with swtpm_setup and our own configuration, so its EK
 * certificate is signed by a {@link LocalCa} instead of the host's /var/lib/swtpm-localca (see
 * swtpm_setup.conf(5), swtpm-localca.conf(5)). The state lands in {@code dir/state}.
 */
public final class SwtpmManufacturer {
    private SwtpmManufacturer() {}

    public static void manufacture(Path dir, LocalCa ca) throws IOException, InterruptedException {
        Path localca = Files.createDirectories(dir.resolve("localca"));
        Path state = Files.createDirectories(dir.resolve("state"));
        Files.writeString(localca.resolve("certserial"), "1\n");
        Path localcaConf = Files.writeString(localca.resolve("swtpm-localca.conf"), String.join("\n",
                "statedir = " + localca.toAbsolutePath(),
                "signingkey = " + ca.keyPem().toAbsolutePath(),
                "issuercert = " + ca.certPem().toAbsolutePath(),
                "certserial = " + localca.resolve("certserial").toAbsolutePath(), ""));
        Path options = Files.writeString(localca.resolve("swtpm-localca.options"), String.join("\n",
                "--platform-manufacturer Sextant", "--platform-version 2.1", "--platform-model swtpm", ""));
        // Only the SHA-256 bank: Sextant quotes it alone, and fewer banks make every extend cheaper.
        Path setupConf = Files.writeString(localca.resolve("swtpm_setup.conf"), String.join("\n",
                "create_certs_tool = /usr/bin/swtpm_localca",
                "create_certs_tool_config = " + localcaConf.toAbsolutePath(),
                "create_certs_tool_options = " + options.toAbsolutePath(),
                "active_pcr_banks = sha256", ""));
        Path log = dir.resolve("swtpm_setup.log");
        Process p = new ProcessBuilder("swtpm_setup", "--tpm2", "--tpmstate", state.toAbsolutePath().toString(),
                "--create-ek-cert", "--config", setupConf.toAbsolutePath().toString(), "--overwrite")
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException("swtpm_setup did not finish within 60 s");
        }
        if (p.exitValue() != 0) {
            throw new IOException("swtpm_setup failed with " + p.exitValue() + ":\n" + Files.readString(log));
        }
    }
}
