package dev.sextant.cli.image;

import picocli.CommandLine.Command;

@Command(name = "image",
        description = "Build the node image and predict its measurements.",
        footer = "  sextant image build --out out/image --signing-key keys/measurements-key.pem",
        subcommands = {BuildCommand.class})
public final class ImageCommand {
}
