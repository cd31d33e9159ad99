package dev.sextant.cli.attest;

import picocli.CommandLine.Command;

@Command(name = "attest",
        description = "Issue, verify and export TPM attestation documents.",
        footer = {"  sextant attest quote --tpm swtpm:127.0.0.1:2321 \\",
                "      --nonce 00112233 --out doc.bin"},
        subcommands = {QuoteCommand.class, VerifyCommand.class, ExportCommand.class})
public final class AttestCommand {
}
