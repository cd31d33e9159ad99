package dev.sextant.cli.measurements;

import dev.sextant.attestation.policy.MeasurementsFile;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;

@Command(name = "sign", mixinStandardHelpOptions = true,
        description = "Check that FILE is a valid measurements file and write its signature to FILE.sig.")
public final class SignCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--file", required = true)
    Path file;

    @Option(names = "--key", required = true, description = "private key PEM (Ed25519 or ECDSA P-256)")
    Path key;

    @Override
    public Integer call() throws Exception {
        MeasurementsFile.sign(file, Files.readString(key));
        spec.commandLine().getOut().println(MeasurementsFile.signatureFile(file));
        return 0;
    }
}
