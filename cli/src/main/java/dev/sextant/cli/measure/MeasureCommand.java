package dev.sextant.cli.measure;

import picocli.CommandLine.Command;

/**
 * {@code sextant measure}: Authenticode digests and PCR predictions, mounted by the CLI module. Not
 * runnable itself, so that a missing subcommand is a usage error (exit 2) as for every command group.
 */
@Command(name = "measure", mixinStandardHelpOptions = true,
        description = "Compute Authenticode digests and predict PCR values of UKIs and disk images.",
        footer = "  sextant measure uki out/image/sextant.efi",
        subcommands = {AuthenticodeCommand.class, UkiCommand.class, MeasureImageCommand.class})
public final class MeasureCommand {
    public MeasureCommand() {
    }
}
