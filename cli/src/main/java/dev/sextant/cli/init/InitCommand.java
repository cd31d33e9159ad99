package dev.sextant.cli.init;

import dev.sextant.operatorfiles.MasterSecretFile;
import com.google.protobuf.ByteString;
import dev.sextant.cli.failure.ExitCodes;
import dev.sextant.cli.failure.Printable;
import dev.sextant.cli.failure.Rejections;
import dev.sextant.cli.input.InputFiles;
import dev.sextant.cli.input.VerifierOptions;
import dev.sextant.operatorfiles.ClusterRecordFile;
import dev.sextant.attestation.verify.AttestedState;
import dev.sextant.cli.remote.AttestedChannel;
import dev.sextant.cli.remote.ConnectionFailures;
import dev.sextant.cli.remote.NodeEndpoint;
import dev.sextant.localcluster.init.InitClient;
import dev.sextant.localcluster.init.InitFailed;
import dev.sextant.localcluster.init.InitResult;
import dev.sextant.proto.v1.InitRequest;
import dev.sextant.proto.v1.KubernetesSettings;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;

@Command(name = "init",
        description = {"Initialize a cluster on its first node: verify the node over attested TLS, send the "
                + "init secret and master secret, show the node's progress and write the kubeconfig."},
        footer = {"  sextant init --endpoint 192.0.2.10:9000 --measurements \\",
                "      out/image/measurements.json --ek-ca ca/ca-cert.pem \\",
                "      --init-secret init-secret.txt"},
        exitCodeList = {" 0:initialized; the kubeconfig is written",
                " 1:REJECTED: <REASON>: <sentence>, or the node refused the request or failed (its journal is then printed and saved)",
                ExitCodes.FAILED_ROW})
public final class InitCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--endpoint", required = true, paramLabel = "HOST:PORT", converter = NodeEndpoint.Converter.class,
            description = "the first node's gRPC port")
    NodeEndpoint endpoint;

    @Mixin
    VerifierOptions verifierOptions;

    @Option(names = "--master-secret", description = "master secret JSON; created (0600) when missing (default: ${DEFAULT-VALUE})")
    Path masterSecret = Path.of("sextant-mastersecret.json");

    @Option(names = "--init-secret", description = "file whose content (trailing whitespace removed) is the init secret"
            + " the node was given as a hash (default: $SEXTANT_INIT_SECRET_FILE, else ${DEFAULT-VALUE})")
    Path initSecret = Path.of(System.getenv().getOrDefault("SEXTANT_INIT_SECRET_FILE", "sextant-init-secret"));

    @Option(names = "--cluster-record", paramLabel = "FILE",
            description = "where the init node's AK and state disk are recorded, for 'sextant recover' (default: ${DEFAULT-VALUE})")
    Path clusterRecord = Path.of(ClusterRecordFile.DEFAULT_NAME);

    @Option(names = "--kubeconfig-out", description = "where the admin kubeconfig goes (default: ${DEFAULT-VALUE})")
    Path kubeconfigOut = Path.of("sextant-admin.conf");

    @Option(names = "--journal-out", description = "where the node's journal goes on failure (default: ${DEFAULT-VALUE})")
    Path journalOut = Path.of("sextant-init-journal.log");

    @Option(names = "--cluster-name", description = "RFC 1123 label (default: ${DEFAULT-VALUE})")
    String clusterName = "sextant";

    @Option(names = "--control-planes", paramLabel = "N",
            description = "the most control planes the cluster admits, this node included (1 to 7; default: ${DEFAULT-VALUE}); "
                    + "the join service refuses a control-plane ticket beyond it")
    int controlPlanes = 3;

    @Option(names = "--api-server-san", description = "extra API server certificate SAN (repeatable)")
    List<String> sans = new ArrayList<>();

    @Option(names = "--timeout", description = "seconds the whole init may take (default: ${DEFAULT-VALUE})")
    long timeoutSeconds = 600;

    /** What the node answered, once it initialized; {@code sextant mini} takes the cluster ID from it. */
    private InitResult result;

    @Override
    public Integer call() throws Exception {
        // Every input is checked before the master secret file is created or anything is sent.
        if (controlPlanes < 1 || controlPlanes > 7) {
            throw new CommandLine.ParameterException(spec.commandLine(),
                    "--control-planes must be between 1 and 7 (etcd voters), got " + controlPlanes);
        }
        var verifier = verifierOptions.verifier();
        byte[] secret = InputFiles.readString("--init-secret", initSecret,
                "pass the file holding the init secret the node was booted with (--init-secret FILE,"
                        + " or SEXTANT_INIT_SECRET_FILE=FILE)").stripTrailing().getBytes();
        InitRequest request = request(MasterSecretFile.loadOrCreate(masterSecret), secret);
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        InitReport report = new InitReport(out);
        try (AttestedChannel node = new AttestedChannel(endpoint, verifier)) {
            try {
                result = new InitClient(node.channel(), Duration.ofSeconds(timeoutSeconds)).init(request, line -> {
                    out.println(line);
                    out.flush();
                }, err::println);
            } catch (StatusRuntimeException e) {
                return refused(e, node, out);
            }
            record(node.verified().orElseThrow(), out);
        } catch (InitFailed failed) {
            return report.failed(failed, journalOut);
        }
        return report.initialized(result, endpoint.host(), kubeconfigOut);
    }

    /** The init node as it proved itself in this handshake: the one machine {@code sextant recover} sends its disk's key. */
    private void record(AttestedState node, PrintWriter out) throws IOException {
        if (result.stateDiskUuid().isEmpty()) {
            out.println("the node did not name its state disk (an older bootstrapper): nothing recorded in " + clusterRecord);
            return;
        }
        ClusterRecordFile.record(clusterRecord, result.clusterIdHex(),
                new ClusterRecordFile.Machine(HexFormat.of().formatHex(node.akName()), result.stateDiskUuid()));
        out.println("cluster record: state disk " + result.stateDiskUuid() + " held by AK "
                + HexFormat.of().formatHex(node.akName()) + ", in " + clusterRecord);
    }

    /** The node's answer when this command initialized it; empty before, and when init did not succeed. */
    public Optional<InitResult> result() {
        return Optional.ofNullable(result);
    }

    /** The join service will enforce the measurements and EK CA this command verifies the node with. */
    private InitRequest request(MasterSecretFile master, byte[] secret) throws IOException {
        return InitRequest.newBuilder().setInitSecret(ByteString.copyFrom(secret))
                .setJoinMeasurements(verifierOptions.signedMeasurements()).setEkCaPem(verifierOptions.ekCaPem())
                .setMasterSecret(ByteString.copyFrom(master.key())).setMasterSalt(ByteString.copyFrom(master.salt()))
                .setMeasurementSalt(ByteString.copyFrom(master.measurementSalt())).setClusterName(clusterName)
                .setControlPlanes(controlPlanes).setKubernetes(KubernetesSettings.getDefaultInstance()).addAllApiServerCertSans(sans).build();
    }

    private int refused(StatusRuntimeException e, AttestedChannel node, PrintWriter out) {
        if (node.rejection().isPresent()) {
            out.println(Rejections.line(node.rejection().get()));
        } else if (e.getStatus().getCode() == Status.Code.PERMISSION_DENIED) {
            out.println("init refused: wrong init secret (" + initSecret + ")");
        } else if (e.getStatus().getCode() == Status.Code.INVALID_ARGUMENT) {
            out.println("init refused: " + Printable.of(String.valueOf(e.getStatus().getDescription())));
        } else {
            throw ConnectionFailures.describe(endpoint, e, Duration.ofSeconds(timeoutSeconds));
        }
        return ExitCodes.REJECTED;
    }
}
