package dev.sextant.cli.measurements;

import dev.sextant.cli.failure.ExitCodes;
import dev.sextant.cli.failure.Rejections;
import dev.sextant.cli.input.VerifierOptions;
import dev.sextant.cli.remote.NodeEndpoint;
import dev.sextant.proto.v1.SignedMeasurements;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * Publishes a signed measurement set at a join service ({@code MeasurementsService.Publish}), which writes it
 * to etcd, where every join service of the cluster takes it (docs/image-upgrades.md). The join service is
 * verified in the handshake against the very set being published, as {@code sextant verify} verifies a node:
 * during a rollout it runs an image the set admits (the old one in the rollout set, the new one in the
 * retiring set), and a service the operator cannot verify gets no set. The first step of
 * {@code sextant upgrade image}.
 */
@Command(name = "publish",
        description = {"Publish a signed measurement set at a join service: every join service of the cluster then",
                "holds it in force. The join service is verified over attested TLS against the set itself;",
                "the set must be signed by the key the cluster pinned and have a higher version than the one",
                "in force, and may not admit an image the cluster retired."},
        footer = {"  sextant measurements publish --measurements out/b/measurements.json \\",
                "      --measurements-key keys/measurements-pub.pem \\",
                "      --endpoint 192.0.2.10:9090 --ek-ca ca/ca-cert.pem"},
        exitCodeList = {ExitCodes.DONE_ROW, ExitCodes.REJECTED_ROW, ExitCodes.FAILED_ROW})
public final class PublishCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--endpoint", required = true, paramLabel = "HOST:PORT", converter = NodeEndpoint.Converter.class,
            description = "a join service's gRPC port (a control plane's, 9090)")
    NodeEndpoint endpoint;

    @Option(names = "--timeout", paramLabel = "SECONDS", description = "how long to wait for the join service (default: ${DEFAULT-VALUE})")
    long timeoutSeconds = 30;

    @Mixin
    VerifierOptions options;

    @Override
    public Integer call() throws Exception {
        SignedMeasurements signed = options.signedMeasurements();
        if (signed.getSignature().isEmpty()) {
            throw new ParameterException(spec.commandLine(), "--measurements-key PEM is required: only a set signed by the"
                    + " cluster's key can be published (sign it with `sextant measurements sign`)");
        }
        PrintWriter out = spec.commandLine().getOut();
        // Verifies the set's signature here first (a typo fails before any connection), then the service with it.
        MeasurementsPublisher.Outcome outcome = new MeasurementsPublisher(endpoint, Duration.ofSeconds(timeoutSeconds))
                .publish(signed, options.verifierOfBootstrappedNode());
        if (outcome instanceof MeasurementsPublisher.ServiceRejected rejected) {
            out.println(Rejections.line(rejected.rejection()));
            return ExitCodes.REJECTED;
        }
        ((MeasurementsPublisher.Published) outcome).lines().forEach(out::println);
        return ExitCodes.OK;
    }
}
