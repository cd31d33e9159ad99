package dev.sextant.imagebuilder.cli;

import picocli.CommandLine.Command;

/** {@code sextant measure}: Authenticode digests and PCR predictions, mounted by the CLI module. */
@Command(name = "measure", mixinStandardHelpOptions = true,
        description = "Compute Authenticode digests and predict PCR values of UKIs and disk images.",
        subcommands = {AuthenticodeCommand.class, UkiCommand.class, ImageCommand.class})
public final class MeasureCommand implements Runnable {
    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    public MeasureCommand() {
    }

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getErr());
    }
}
