package dev.sextant.cli.upgrade;

import picocli.CommandLine.Command;

@Command(name = "upgrade", mixinStandardHelpOptions = true,
        description = "Upgrade the cluster's join service and KMS (and measurements), rolling back on failure.",
        subcommands = {ApplyCommand.class})
public final class UpgradeCommand {
}
