package dev.sextant.cli.measurements;

import picocli.CommandLine.Command;

@Command(name = "measurements",
        description = "Sign, verify and publish measurements files (expected PCR values, detached signature <file>.sig).",
        footer = {"  sextant measurements sign --file out/image/measurements.json --key \\",
                "      keys/measurements-key.pem"},
        subcommands = {KeygenCommand.class, SignCommand.class, VerifyMeasurementsCommand.class, PublishCommand.class})
public final class MeasurementsCommand {
}
