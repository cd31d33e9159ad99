package dev.sextant.cli.measurements;

import dev.sextant.attestation.policy.MeasurementsException;
import dev.sextant.attestation.policy.MeasurementsFile;
import dev.sextant.cli.failure.CliFailure;
import dev.sextant.cli.failure.ExitCodes;
import dev.sextant.cli.input.MeasurementsInput;
import dev.sextant.cli.input.PemKeys;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.nio.file.Path;
import java.util.concurrent.Callable;

@Command(name = "sign",
        description = "Check that FILE is a valid measurements file and write its signature to FILE.sig.",
        footer = {"  sextant measurements sign --file out/image/measurements.json --key \\",
                "      keys/measurements-key.pem"})
public final class SignCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--file", required = true, paramLabel = "FILE", description = "measurements JSON")
    Path file;

    @Option(names = "--key", required = true, paramLabel = "PEM", description = "private key PEM (Ed25519 or ECDSA P-256)")
    Path key;

    @Override
    public Integer call() {
        MeasurementsInput.parse("--file", file);
        String privateKey = PemKeys.privateKey("--key", key, "pass the measurements-key.pem that `sextant measurements keygen` wrote");
        try {
            MeasurementsFile.sign(file, privateKey);
        } catch (MeasurementsException e) {
            // The library's message never quotes the key.
            throw new CliFailure("--key " + key + ": cannot sign with it (" + e.getMessage() + ")", e);
        }
        spec.commandLine().getOut().println(MeasurementsFile.signatureFile(file));
        return ExitCodes.OK;
    }
}
