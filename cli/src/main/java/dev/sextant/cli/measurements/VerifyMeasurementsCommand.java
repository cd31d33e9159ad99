package dev.sextant.cli.measurements;

import dev.sextant.attestation.policy.MeasurementsException;
import dev.sextant.attestation.policy.MeasurementsFile;
import dev.sextant.cli.failure.ExitCodes;
import dev.sextant.cli.input.InputFiles;
import dev.sextant.cli.input.MeasurementsInput;
import dev.sextant.cli.input.PemKeys;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.nio.file.Path;
import java.util.concurrent.Callable;

@Command(name = "verify",
        description = "Check FILE.sig with the public key; print the measurements and exit 0, or 'REJECTED: ...' and exit 1.",
        footer = {"  sextant measurements verify --file out/image/measurements.json --key \\",
                "      keys/measurements-pub.pem"},
        exitCodeList = {ExitCodes.VERIFIED_ROW, " 1:REJECTED: UNTRUSTED_MEASUREMENTS: <sentence> (on stdout)", ExitCodes.FAILED_ROW})
public final class VerifyMeasurementsCommand implements Callable<Integer> {
    /** The one reason this command rejects for: the signature does not vouch for this file. */
    static final String REASON = "UNTRUSTED_MEASUREMENTS";

    @Spec
    CommandSpec spec;

    @Option(names = "--file", required = true, paramLabel = "FILE", description = "measurements JSON, signed in FILE.sig")
    Path file;

    @Option(names = "--key", required = true, paramLabel = "PEM", description = "public key PEM")
    Path key;

    @Override
    public Integer call() {
        // Missing or wrong inputs are the operator's to fix (exit 2); only a signature that does not
        // vouch for the file is a rejection.
        InputFiles.read("--file", file, MeasurementsInput.REMEDY);
        String publicKey = PemKeys.publicKey("--key", key, "pass the measurements-pub.pem that `sextant measurements keygen` wrote");
        MeasurementsInput.signatureFile("--file", file);
        try {
            var measurements = MeasurementsFile.verifySet(file, publicKey);
            spec.commandLine().getOut().println(new String(measurements.toJson()));
            return ExitCodes.OK;
        } catch (MeasurementsException e) {
            spec.commandLine().getOut().println("REJECTED: " + REASON + ": " + e.getMessage());
            return ExitCodes.REJECTED;
        }
    }
}
