package dev.sextant.cli.image;

import picocli.CommandLine.Command;

@Command(name = "image", mixinStandardHelpOptions = true,
        description = "Build the node image and predict its measurements.",
        subcommands = {BuildCommand.class})
public final class ImageCommand {
}
