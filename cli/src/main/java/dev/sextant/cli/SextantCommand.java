package dev.sextant.cli;

import dev.sextant.cli.attest.AttestCommand;
import dev.sextant.cli.completion.CompletionCommand;
import dev.sextant.cli.failure.ExitCodes;
import dev.sextant.cli.failure.ExecutionErrorHandler;
import dev.sextant.cli.init.InitCommand;
import dev.sextant.cli.image.ImageCommand;
import dev.sextant.cli.measurements.MeasurementsCommand;
import dev.sextant.cli.tpm.TpmCommand;
import dev.sextant.cli.measure.MeasureCommand;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;

/**
 * The root command. Its help layout (standard help options, the example and exit-code headings, the
 * default exit codes) is inherited by every subcommand, which adds its own example as the footer.
 */
@Command(name = "sextant", scope = ScopeType.INHERIT, mixinStandardHelpOptions = true, version = "sextant 0.1.0",
        description = "Confidential Kubernetes clusters whose nodes prove what they run.",
        footerHeading = "%nExample:%n",
        footer = {"  sextant verify --endpoint 192.0.2.10:9000 --measurements \\",
                "      out/image/measurements.json --ek-ca ca/ca-cert.pem"},
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {ExitCodes.DONE_ROW, ExitCodes.FAILED_ROW},
        subcommands = {InitCommand.class, NodeVerifyCommand.class, AttestCommand.class, MeasurementsCommand.class,
                TpmCommand.class, MeasureCommand.class, ImageCommand.class, dev.sextant.cli.upgrade.UpgradeCommand.class,
                dev.sextant.cli.mini.MiniCommand.class, dev.sextant.cli.recover.RecoverCommand.class, dev.sextant.cli.operator.ClusterCommand.class,
                dev.sextant.cli.operator.RevokeCommand.class, CompletionCommand.class})
public final class SextantCommand {
    @Option(names = ExecutionErrorHandler.DEBUG_OPTION, scope = ScopeType.INHERIT,
            description = "on failure, also print the exception, its causes and their stack traces")
    boolean debug;
}
