package dev.sextant.cli.init;

import com.google.protobuf.ByteString;
import dev.sextant.atls.AtlsContexts;
import dev.sextant.attestation.verify.AttestationRejected;
import dev.sextant.attestation.verify.AttestationVerifier;
import dev.sextant.cli.VerifierOptions;
import dev.sextant.proto.v1.InitRequest;
import dev.sextant.proto.v1.InitResponse;
import dev.sextant.proto.v1.InitServiceGrpc;
import dev.sextant.proto.v1.KubernetesSettings;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.NettyChannelBuilder;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

@Command(name = "init", mixinStandardHelpOptions = true,
        description = {"Initialize a cluster on its first node: verify the node over attested TLS, send the "
                + "init secret and master secret, show the node's progress and write the kubeconfig.",
                "Exits 0 on success, 1 when the node was rejected, refused the request or failed (its journal "
                + "is then printed and saved)."})
public final class InitCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--endpoint", required = true, description = "HOST:PORT of the first node's gRPC port")
    String endpoint;

    @Mixin
    VerifierOptions verifierOptions;

    @Option(names = "--master-secret", description = "master secret JSON; created (0600) when missing (default: ${DEFAULT-VALUE})")
    Path masterSecret = Path.of("sextant-mastersecret.json");

    @Option(names = "--init-secret", description = "file whose content (trailing whitespace removed) is the init secret"
            + " the node was given as a hash (default: $SEXTANT_INIT_SECRET_FILE, else ${DEFAULT-VALUE})")
    Path initSecret = Path.of(System.getenv().getOrDefault("SEXTANT_INIT_SECRET_FILE", "sextant-init-secret"));

    @Option(names = "--kubeconfig-out", description = "where the admin kubeconfig goes (default: ${DEFAULT-VALUE})")
    Path kubeconfigOut = Path.of("sextant-admin.conf");

    @Option(names = "--journal-out", description = "where the node's journal goes on failure (default: ${DEFAULT-VALUE})")
    Path journalOut = Path.of("sextant-init-journal.log");

    @Option(names = "--cluster-name", description = "RFC 1123 label (default: ${DEFAULT-VALUE})")
    String clusterName = "sextant";

    @Option(names = "--api-server-san", description = "extra API server certificate SAN (repeatable)")
    List<String> sans = new ArrayList<>();

    @Option(names = "--timeout", description = "seconds the whole init may take (default: ${DEFAULT-VALUE})")
    long timeoutSeconds = 600;

    @Override
    public Integer call() throws Exception {
        AttestationVerifier verifier = verifierOptions.verifier();
        var rejected = new AtomicReference<AttestationRejected>();
        AttestationVerifier recording = (document, nonce, userData) -> {
            try {
                return verifier.verify(document, nonce, userData);
            } catch (AttestationRejected e) {
                rejected.set(e);
                throw e;
            }
        };
        MasterSecretFile master = MasterSecretFile.loadOrCreate(masterSecret);
        InitRequest request = request(master, Files.readString(initSecret).stripTrailing().getBytes());
        int colon = endpoint.lastIndexOf(':');
        String host = endpoint.substring(0, colon);
        ManagedChannel channel = NettyChannelBuilder.forAddress(host, Integer.parseInt(endpoint.substring(colon + 1)))
                .sslContext(AtlsContexts.client(null, recording)).build();
        PrintWriter out = spec.commandLine().getOut();
        InitStream stream = new InitStream(out, spec.commandLine().getErr(), host);
        try {
            InitServiceGrpc.newBlockingStub(channel).withDeadlineAfter(timeoutSeconds, TimeUnit.SECONDS).init(request)
                    .forEachRemaining(stream::accept);
        } catch (StatusRuntimeException e) {
            return refused(e, rejected.get(), out);
        } finally {
            channel.shutdownNow();
        }
        return stream.finish(kubeconfigOut, journalOut);
    }

    /** The join service will enforce the measurements and EK CA this command verifies the node with. */
    private InitRequest request(MasterSecretFile master, byte[] secret) throws IOException {
        return InitRequest.newBuilder().setInitSecret(ByteString.copyFrom(secret))
                .setJoinMeasurements(verifierOptions.signedMeasurements()).setEkCaPem(verifierOptions.ekCaPem())
                .setMasterSecret(ByteString.copyFrom(master.key())).setMasterSalt(ByteString.copyFrom(master.salt()))
                .setMeasurementSalt(ByteString.copyFrom(master.measurementSalt())).setClusterName(clusterName)
                .setKubernetes(KubernetesSettings.getDefaultInstance()).addAllApiServerCertSans(sans).build();
    }

    private int refused(StatusRuntimeException e, AttestationRejected rejected, PrintWriter out) {
        if (rejected != null) {
            out.println("REJECTED: " + String.join("; ", rejected.toString().lines().toList()));
        } else if (e.getStatus().getCode() == Status.Code.PERMISSION_DENIED) {
            out.println("init refused: wrong init secret (" + initSecret + ")");
        } else if (e.getStatus().getCode() == Status.Code.INVALID_ARGUMENT) {
            out.println("init refused: " + e.getStatus().getDescription());
        } else {
            throw new IllegalStateException("init on " + endpoint + " broke off: " + e.getStatus(), e);
        }
        return 1;
    }

    static String hex(byte[] bytes) {
        return HexFormat.of().formatHex(bytes);
    }
}
