package dev.sextant.cli.operator;

import dev.sextant.cli.failure.CliFailure;
import dev.sextant.cli.input.InputFiles;
import dev.sextant.cli.input.VerifierOptions;
import dev.sextant.cli.remote.NodeEndpoint;
import dev.sextant.keys.operator.OperatorCredential;
import dev.sextant.operatorfiles.MasterSecretFile;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import javax.net.ssl.SSLException;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * What every operator command takes: the join service's endpoint, verified as {@code sextant verify}
 * verifies a node, and the master secret file the operator's credential is derived from on this machine
 * (the secret itself is never sent; only proofs made with the derived key are).
 */
public final class OperatorOptions {
    @Option(names = "--endpoint", required = true, paramLabel = "HOST:PORT", converter = NodeEndpoint.Converter.class,
            description = "a control plane's join service (its gRPC port)")
    NodeEndpoint endpoint;

    @Option(names = "--master-secret", required = true, paramLabel = "FILE",
            description = "the cluster's master secret file ('sextant init' wrote it); it never leaves this machine")
    Path masterSecret;

    @Option(names = "--timeout", paramLabel = "SECONDS", description = "how long to wait for the join service (default: ${DEFAULT-VALUE})")
    long timeoutSeconds = 30;

    @Mixin
    VerifierOptions verifier;

    Duration timeout() {
        return Duration.ofSeconds(timeoutSeconds);
    }

    NodeEndpoint endpoint() {
        return endpoint;
    }

    OperatorConnection connection() throws SSLException {
        return new OperatorConnection(endpoint, verifier.verifier(), credential(masterSecret));
    }

    /** The operator's credential, derived on this machine from the master secret file ({@code --master-secret}). */
    public static OperatorCredential credential(Path masterSecret) {
        MasterSecretFile secret;
        try {
            secret = MasterSecretFile.parse(InputFiles.readString("--master-secret", masterSecret,
                    "pass the master secret file 'sextant init' wrote"), masterSecret);
        } catch (IOException e) {
            throw new CliFailure("--master-secret " + e.getMessage());
        }
        return OperatorCredential.of(secret.key(), secret.salt());
    }
}
