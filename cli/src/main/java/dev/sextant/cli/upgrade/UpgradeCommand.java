package dev.sextant.cli.upgrade;

import picocli.CommandLine.Command;

@Command(name = "upgrade", mixinStandardHelpOptions = true,
        description = {"Upgrade the cluster's join service and KMS (and measurements), rolling back on failure (apply),",
                "or roll its measurement set to a new node image (image)."},
        footer = {"  sextant upgrade apply --join-service registry.example/join@sha256:DIGEST \\",
                "      --kms registry.example/kms@sha256:DIGEST"},
        subcommands = {ApplyCommand.class, UpgradeImageCommand.class})
public final class UpgradeCommand {
}
