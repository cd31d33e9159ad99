package dev.sextant.cli;

import dev.sextant.cli.attest.AttestCommand;
import dev.sextant.cli.init.InitCommand;
import dev.sextant.cli.image.ImageCommand;
import dev.sextant.cli.measurements.MeasurementsCommand;
import dev.sextant.cli.tpm.TpmCommand;
import dev.sextant.imagebuilder.cli.MeasureCommand;
import picocli.CommandLine.Command;

@Command(name = "sextant", mixinStandardHelpOptions = true, version = "sextant 0.1.0",
        description = "Confidential Kubernetes clusters whose nodes prove what they run.",
        subcommands = {InitCommand.class, NodeVerifyCommand.class, AttestCommand.class, MeasurementsCommand.class,
                TpmCommand.class, MeasureCommand.class, ImageCommand.class, dev.sextant.cli.upgrade.UpgradeCommand.class,
                dev.sextant.cli.mini.MiniCommand.class})
public final class SextantCommand {
}
