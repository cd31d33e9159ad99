package dev.sextant.cli.attest;

import dev.sextant.attestation.verify.AttestationRejected;
import dev.sextant.cli.Hex;
import dev.sextant.cli.VerifierOptions;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;

@Command(name = "verify", mixinStandardHelpOptions = true,
        description = "Verify a document for a nonce. Prints OK and exits 0, or one line 'REJECTED: <reason>' and exits 1.")
public final class VerifyCommand implements Callable<Integer> {
    static final int REJECTED = 1;

    @Spec
    CommandSpec spec;

    @Option(names = "--doc", required = true)
    Path document;

    @Option(names = "--nonce", required = true, converter = Hex.Converter.class)
    Hex nonce;

    @Option(names = "--user-data", converter = Hex.Converter.class)
    Hex userData = Hex.EMPTY;

    @Mixin
    VerifierOptions options;

    @Override
    public Integer call() throws Exception {
        var verifier = options.verifier();
        try {
            var state = verifier.verify(Files.readAllBytes(document), nonce.bytes(), userData.bytes());
            state.warnings().forEach(w -> spec.commandLine().getErr().println("warning: " + w));
            spec.commandLine().getOut().println("OK");
            return 0;
        } catch (AttestationRejected e) {
            spec.commandLine().getOut().println("REJECTED: " + String.join("; ", e.toString().lines().toList()));
            return REJECTED;
        }
    }
}
