package dev.sextant.cli.attest;

import picocli.CommandLine.Command;

@Command(name = "attest", mixinStandardHelpOptions = true,
        description = "Issue, verify and export TPM attestation documents.",
        subcommands = {QuoteCommand.class, VerifyCommand.class, ExportCommand.class})
public final class AttestCommand {
}
