package dev.sextant.cli.measurements;

import dev.sextant.attestation.policy.MeasurementsException;
import dev.sextant.attestation.policy.MeasurementsFile;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;

@Command(name = "verify", mixinStandardHelpOptions = true,
        description = "Check FILE.sig with the public key; print the measurements and exit 0, or 'REJECTED: ...' and exit 1.")
public final class VerifyMeasurementsCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--file", required = true)
    Path file;

    @Option(names = "--key", required = true, description = "public key PEM")
    Path key;

    @Override
    public Integer call() throws Exception {
        try {
            var measurements = MeasurementsFile.verify(file, Files.readString(key));
            spec.commandLine().getOut().println(new String(measurements.toJson()));
            return 0;
        } catch (MeasurementsException e) {
            spec.commandLine().getOut().println("REJECTED: " + e.getMessage());
            return 1;
        }
    }
}
