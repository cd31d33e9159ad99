package dev.sextant.cli.tpm;

import dev.sextant.cli.failure.CliFailure;
import dev.sextant.tpm.command.TpmClient;
import dev.sextant.tpm.command.TpmException;
import dev.sextant.tpmmanufacturer.swtpm.LocalCa;
import dev.sextant.tpm.transport.TpmTarget;

import java.io.IOException;
import java.net.ConnectException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The --ca and --tpm arguments of the commands that take them, failing in words that say what to do. */
public final class TpmInputs {
    private TpmInputs() {}

    static LocalCa ca(Path dir) {
        if (!Files.isRegularFile(dir.resolve("ca-cert.pem")) || !Files.isRegularFile(dir.resolve("ca-key.pem"))) {
            throw new CliFailure("--ca " + dir + " holds no CA (ca-cert.pem and ca-key.pem): create one with `sextant tpm ca --dir "
                    + dir + "`");
        }
        try {
            return LocalCa.load(dir);
        } catch (IOException | RuntimeException e) {
            throw new CliFailure("--ca " + dir + ": ca-cert.pem and ca-key.pem are not a CA certificate and its key:"
                    + " create a CA with `sextant tpm ca --dir DIR`", e);
        }
    }

    /** The TPM --tpm names, opened and started. */
    static TpmClient open(String tpm) {
        TpmTarget target;
        try {
            target = TpmTarget.parse(tpm);
        } catch (IllegalArgumentException e) {
            throw new CliFailure(e.getMessage(), e); // names the option and the forms it takes
        }
        TpmClient client;
        try {
            client = TpmClient.open(target);
        } catch (TpmException e) {
            throw unusable(tpm, e);
        }
        try {
            client.startup();
            return client;
        } catch (TpmException e) {
            try {
                client.close();
            } catch (IOException closing) {
                e.addSuppressed(closing);
            }
            throw unusable(tpm, e);
        }
    }

    /** A TPM that could not be opened or started, for every command that takes --tpm. */
    public static CliFailure unusable(String tpm, Exception e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof ConnectException) {
                return new CliFailure("--tpm " + tpm + ": nothing listens there (connection refused): start swtpm, or check --tpm", e);
            }
        }
        return new CliFailure("--tpm " + tpm + ": cannot use the TPM (" + e.getMessage()
                + "): start swtpm (or check the TPM device), or check --tpm", e);
    }
}
