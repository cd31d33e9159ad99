package dev.sextant.cli.measurements;

import picocli.CommandLine.Command;

@Command(name = "measurements", mixinStandardHelpOptions = true,
        description = "Sign and verify measurements files (expected PCR values, detached signature <file>.sig).",
        subcommands = {KeygenCommand.class, SignCommand.class, VerifyMeasurementsCommand.class})
public final class MeasurementsCommand {
}
