package dev.sextant.cli.operator;

import dev.sextant.cli.failure.ExitCodes;
import picocli.CommandLine.Command;

@Command(name = "cluster",
        description = "The operator's view of a running cluster, from its join service.",
        footer = {"  sextant cluster status --endpoint 192.0.2.10:9090 \\",
                "      --master-secret sextant-mastersecret.json \\",
                "      --measurements out/image/measurements.json --ek-ca ca/ca-cert.pem"},
        exitCodeList = {ExitCodes.DONE_ROW, ExitCodes.FAILED_ROW},
        subcommands = ClusterStatusCommand.class)
public final class ClusterCommand {
}
