package dev.sextant.cli.tpm;

import picocli.CommandLine.Command;

@Command(name = "tpm",
        description = "Make and provision emulated TPMs: a local EK CA, swtpm state with an EK certificate, the AK certificate.",
        footer = "  sextant tpm ca --dir ca && sextant tpm manufacture --ca ca --dir tpm0",
        subcommands = {CaCommand.class, ManufactureCommand.class, ProvisionCommand.class})
public final class TpmCommand {
}
