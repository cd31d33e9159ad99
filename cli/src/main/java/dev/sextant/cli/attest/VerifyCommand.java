package dev.sextant.cli.attest;

import dev.sextant.attestation.Purpose;
import dev.sextant.attestation.verify.AttestationRejected;
import dev.sextant.cli.failure.ExitCodes;
import dev.sextant.cli.failure.Rejections;
import dev.sextant.cli.input.Hex;
import dev.sextant.cli.input.InputFiles;
import dev.sextant.cli.input.VerifierOptions;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.nio.file.Path;
import java.util.concurrent.Callable;

@Command(name = "verify",
        description = {"Verify a document made by 'attest quote' (purpose \"sextant/verify/v1\") for a nonce.",
                "Prints OK and exits 0, or one line 'REJECTED: <REASON>: <sentence>' and exits 1."},
        footer = {"  sextant attest verify --doc doc.bin --nonce 00112233 --measurements \\",
                "      out/image/measurements.json --ek-ca ca/ca-cert.pem"},
        exitCodeList = {ExitCodes.VERIFIED_ROW, ExitCodes.REJECTED_ROW, ExitCodes.FAILED_ROW})
public final class VerifyCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--doc", required = true, paramLabel = "DOC", description = "the attestation document (protobuf)")
    Path document;

    @Option(names = "--nonce", required = true, paramLabel = "HEX", converter = Hex.Converter.class,
            description = "the nonce the document must have been made for")
    Hex nonce;

    @Option(names = "--user-data", paramLabel = "HEX", converter = Hex.Converter.class, description = "data the quote must be bound to")
    Hex userData = Hex.EMPTY;

    @Mixin
    VerifierOptions options;

    @Override
    public Integer call() throws Exception {
        var verifier = options.verifier();
        byte[] doc = InputFiles.read("--doc", document, "pass the document that `sextant attest quote --out` wrote");
        try {
            var state = verifier.verify(doc, Purpose.VERIFY, nonce.bytes(), userData.bytes());
            state.warnings().forEach(w -> spec.commandLine().getErr().println("warning: " + w));
            spec.commandLine().getOut().println("OK");
            return ExitCodes.OK;
        } catch (AttestationRejected e) {
            spec.commandLine().getOut().println(Rejections.line(e));
            return ExitCodes.REJECTED;
        }
    }
}
