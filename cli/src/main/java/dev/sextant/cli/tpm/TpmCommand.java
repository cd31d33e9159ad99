package dev.sextant.cli.tpm;

import picocli.CommandLine.Command;

@Command(name = "tpm", mixinStandardHelpOptions = true,
        description = "Make and provision emulated TPMs: a local EK CA, swtpm state with an EK certificate, the AK certificate.",
        subcommands = {CaCommand.class, ManufactureCommand.class, ProvisionCommand.class})
public final class TpmCommand {
}
