package dev.sextant.cli.upgrade;

import com.google.protobuf.ByteString;
import dev.sextant.attestation.policy.ImageMeasurements;
import dev.sextant.attestation.policy.MeasurementSet;
import dev.sextant.attestation.policy.MeasurementsException;
import dev.sextant.attestation.policy.MeasurementsFile;
import dev.sextant.attestation.verify.AkTrust;
import dev.sextant.attestation.verify.AttestationVerifier;
import dev.sextant.cli.failure.CliFailure;
import dev.sextant.cli.failure.ExitCodes;
import dev.sextant.cli.failure.Rejections;
import dev.sextant.cli.input.MeasurementsInput;
import dev.sextant.cli.input.PemKeys;
import dev.sextant.cli.input.VerifierOptions;
import dev.sextant.cli.measurements.MeasurementsPublisher;
import dev.sextant.cli.operator.ClusterStatusCommand;
import dev.sextant.cli.operator.OperatorCall;
import dev.sextant.cli.operator.OperatorConnection;
import dev.sextant.cli.operator.OperatorOptions;
import dev.sextant.cli.remote.NodeEndpoint;
import dev.sextant.keys.operator.OperatorCredential;
import dev.sextant.proto.v1.NodeAttestationStatus;
import dev.sextant.proto.v1.SignedMeasurements;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * The measurement part of a node image rollout, for any platform (docs/image-upgrades.md, "The rollout"):
 * publish the rollout set (in force + the new image), wait until every node re-attests on the new image
 * while something else (a cloud's API, a person) replaces the machines' boot disks, then publish the
 * retiring set. {@code sextant mini upgrade} is its sibling that also replaces the disks.
 *
 * <p>The join service is verified against the set in force at each call (the old set when the rollout set
 * goes out, the rollout set afterwards), as a bootstrapped control plane. The operator's {@code --in-force}
 * file is replaced by each set once it is published, so that running the command again resumes: a set in
 * force that admits the new image already is not published again.
 */
@Command(name = "image", mixinStandardHelpOptions = true,
        description = {"Roll the cluster's measurement set to a new node image: publish the set in force plus",
                "the new image (version + 1), wait until every node re-attests on the new image while its",
                "boot disk is replaced (by the platform or a person), then publish the set that retires the",
                "others. --in-force is rewritten with each set published; running again resumes."},
        footer = {"  sextant upgrade image --measurements out/b/measurements.json \\",
                "      --in-force sets/in-force.json \\",
                "      --measurements-key keys/measurements-pub.pem \\",
                "      --signing-key keys/measurements-key.pem \\",
                "      --endpoint 192.0.2.10:9090 --ek-ca ca/ca-cert.pem \\",
                "      --master-secret sextant-mastersecret.json"},
        exitCodeList = {" 0:done: every node attests on the new image, the others are retired",
                " 1:REJECTED: <REASON> (the join service), or NOT DONE: nodes not on the new image in time",
                ExitCodes.FAILED_ROW})
public final class UpgradeImageCommand implements Callable<Integer> {
    private static final String NEW = "--measurements";
    private static final String IN_FORCE = "--in-force";
    private static final String KEY = "--measurements-key";
    private static final String SIGNING_KEY = "--signing-key";
    private static final String ATTESTED = "attested";
    private static final String REVOKED = "revoked";

    @Spec
    CommandSpec spec;

    @Option(names = NEW, required = true, paramLabel = "NEW.json",
            description = "the new image's measurement set (`sextant image build` wrote it): exactly one image")
    Path newSet;

    @Option(names = IN_FORCE, required = true, paramLabel = "FILE",
            description = "the set in force: the signed file published last (FILE.sig beside it); replaced by each set published")
    Path inForce;

    @Option(names = KEY, required = true, paramLabel = "PEM",
            description = "public key (PEM) the cluster's sets are signed with: --in-force must verify with it")
    Path measurementsKey;

    @Option(names = SIGNING_KEY, required = true, paramLabel = "PEM", description = "its private key (PEM): signs the new sets")
    Path signingKey;

    @Option(names = "--endpoint", required = true, paramLabel = "HOST:PORT", converter = NodeEndpoint.Converter.class,
            description = "a control plane's join service (its gRPC port)")
    NodeEndpoint endpoint;

    @Option(names = "--master-secret", required = true, paramLabel = "FILE",
            description = "the cluster's master secret file: proves the status calls; it never leaves this machine")
    Path masterSecret;

    @Option(names = "--ek-ca", paramLabel = "PEM", description = "PEM bundle of EK CA certificates the join service's EK and AK must chain to")
    Path ekCa;

    @Option(names = "--insecure-trust-any-ak", description = "INSECURE: accept any attestation key (development only; warns on every use)")
    boolean insecureTrustAnyAk;

    @Option(names = "--out", paramLabel = "DIR", description = "where the new sets are written (default: beside --in-force)")
    Path out;

    @Option(names = "--timeout", paramLabel = "MIN",
            description = "minutes every node has to attest on the new image, e.g. 90 or 0.5 (default: ${DEFAULT-VALUE})")
    double timeoutMinutes = 60;

    @Option(names = "--poll", paramLabel = "SECONDS", description = "how often the nodes' states are asked (default: ${DEFAULT-VALUE})")
    long pollSeconds = 5;

    @Option(names = "--no-wait", description = "publish the rollout set and return; run again (without it) to wait and retire")
    boolean noWait;

    /** How long one call to the join service may take. */
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(30);

    @Override
    public Integer call() throws Exception {
        PrintWriter console = spec.commandLine().getOut();
        if (!(timeoutMinutes > 0) || pollSeconds < 1) {
            throw new ParameterException(spec.commandLine(), "--timeout MIN must be above 0 and --poll SECONDS at least 1");
        }
        String publicKey = PemKeys.publicKey(KEY, measurementsKey, "pass the measurements-pub.pem that `sextant measurements keygen` wrote");
        MeasurementSet current = verifiedInForce(publicKey);
        ImageMeasurements image = newImage(current);
        String privateKey = PemKeys.privateKey(SIGNING_KEY, signingKey, "pass the measurements-key.pem that `sextant measurements keygen` wrote");
        if (ekCa != null && insecureTrustAnyAk) {
            throw new ParameterException(spec.commandLine(), "--ek-ca and --insecure-trust-any-ak exclude each other: give one");
        }
        AkTrust trust = VerifierOptions.trust(ekCa, insecureTrustAnyAk, spec);
        String version = image.imageVersion();

        if (current.images().size() == 1 && current.images().get(0).imageVersion().equals(version)) {
            console.println("the set in force (version " + current.version() + ") admits only image " + version + " already: nothing to do");
            return ExitCodes.OK;
        }
        if (current.images().stream().anyMatch(i -> i.imageVersion().equals(version))) {
            console.println("the set in force (version " + current.version() + ") admits image " + version + " already: resuming");
        } else {
            MeasurementSet rollout = current.admitting(image, current.version() + 1);
            Integer refused = publish(rollout, "rollout", current, trust, privateKey, publicKey, console);
            if (refused != null) {
                return refused;
            }
            current = rollout;
        }
        if (noWait) {
            console.println("not waiting (--no-wait): run again without it once the nodes' boot disks are replaced");
            return ExitCodes.OK;
        }
        console.println("waiting up to " + minutes() + " min for every node to attest on image " + version
                + " (replace their boot disks now; asking " + endpoint + " every " + pollSeconds + " s)");
        Set<String> missing;
        try {
            missing = awaitNodes(version, current, trust, console);
        } catch (ServiceRejectedDuringWait e) {
            return ExitCodes.REJECTED;
        }
        if (!missing.isEmpty()) {
            console.println("NOT DONE: not attested on image " + version + " within " + minutes() + " min: "
                    + String.join(", ", missing) + "; nothing was retired (run again to resume)");
            return ExitCodes.REJECTED;
        }
        MeasurementSet retiring = current.retiringAllBut(version, current.version() + 1);
        return orOk(publish(retiring, "retiring", current, trust, privateKey, publicKey, console));
    }

    private String minutes() {
        return timeoutMinutes == Math.rint(timeoutMinutes) ? String.valueOf((long) timeoutMinutes) : String.valueOf(timeoutMinutes);
    }

    private static int orOk(Integer code) {
        return code == null ? ExitCodes.OK : code;
    }

    private MeasurementSet verifiedInForce(String publicKey) {
        MeasurementsInput.signatureFile(IN_FORCE, inForce);
        try {
            return MeasurementsFile.verifySet(inForce, publicKey);
        } catch (MeasurementsException e) {
            throw new CliFailure(IN_FORCE + " " + inForce + ": " + e.getMessage() + ": pass the set published last, signed with the key "
                    + KEY + " names; nothing was published", e);
        }
    }

    private ImageMeasurements newImage(MeasurementSet inForceSet) {
        MeasurementSet set = MeasurementsInput.parse(NEW, newSet);
        if (set.images().size() != 1) {
            throw new CliFailure(NEW + " " + newSet + ": admits " + set.images().size() + " images, not one: pass the measurements.json"
                    + " of the one image the nodes move to (`sextant image build` wrote it)");
        }
        ImageMeasurements image = set.images().get(0);
        if (inForceSet.retired().stream().anyMatch(r -> r.imageVersion().equals(image.imageVersion()))) {
            throw new CliFailure(NEW + " " + newSet + ": image " + image.imageVersion() + " is retired by the set in force (version "
                    + inForceSet.version() + ") and cannot be admitted again: build a new image with another --image-version");
        }
        return image;
    }

    /**
     * Writes {@code set} as {@code <in-force>.<kind>-<version>.json}, signs it and checks the signature with the
     * cluster's public key (a wrong signing key fails here, not at the service), publishes it at the join
     * service verified against {@code inForceSet}, and then makes it the in-force file. Null when published,
     * else the exit code (the service was rejected).
     */
    private Integer publish(MeasurementSet set, String kind, MeasurementSet inForceSet, AkTrust trust, String privateKey,
                            String publicKey, PrintWriter console) throws Exception {
        Path file = write(set, kind, privateKey, publicKey);
        MeasurementsPublisher.Outcome outcome = new MeasurementsPublisher(endpoint, CALL_TIMEOUT).publish(SignedMeasurements.newBuilder()
                        .setJson(ByteString.copyFrom(Files.readAllBytes(file)))
                        .setSignature(ByteString.copyFrom(Files.readAllBytes(MeasurementsFile.signatureFile(file)))).build(),
                VerifierOptions.verifierOfBootstrappedNode(inForceSet, trust));
        if (outcome instanceof MeasurementsPublisher.ServiceRejected rejected) {
            console.println(Rejections.line(rejected.rejection()));
            return ExitCodes.REJECTED;
        }
        ((MeasurementsPublisher.Published) outcome).lines().forEach(console::println);
        Files.copy(file, inForce, StandardCopyOption.REPLACE_EXISTING);
        Files.copy(MeasurementsFile.signatureFile(file), MeasurementsFile.signatureFile(inForce), StandardCopyOption.REPLACE_EXISTING);
        console.println("the " + kind + " set " + file + " is in force: " + inForce + " holds it now");
        return null;
    }

    private Path write(MeasurementSet set, String kind, String privateKey, String publicKey) throws IOException {
        String name = inForce.getFileName().toString().replaceFirst("\\.json$", "") + "." + kind + "-" + set.version() + ".json";
        Path dir = out != null ? Files.createDirectories(out) : inForce.toAbsolutePath().getParent();
        Path file = dir.resolve(name);
        Files.write(file, set.toJson());
        try {
            MeasurementsFile.sign(file, privateKey);
        } catch (MeasurementsException e) {
            throw new CliFailure(SIGNING_KEY + " " + signingKey + ": cannot sign with it (" + e.getMessage() + "); nothing was published", e);
        }
        try {
            MeasurementsFile.verifySet(file, publicKey);
        } catch (MeasurementsException e) {
            throw new CliFailure(SIGNING_KEY + " " + signingKey + ": not the private key of " + KEY + " " + measurementsKey
                    + " (" + e.getMessage() + "): the cluster would refuse the set; nothing was published", e);
        }
        return file;
    }

    /**
     * Asks the join service (verified against {@code inForceSet}) every {@code --poll} seconds until every node
     * but the revoked is attested on {@code version}, printing each once as it gets there; the nodes still
     * missing at {@code --timeout}. A join service that does not answer is asked again (a control plane's
     * boot disk may be being replaced); one that is rejected stops the wait.
     */
    private Set<String> awaitNodes(String version, MeasurementSet inForceSet, AkTrust trust, PrintWriter console) throws Exception {
        AttestationVerifier verifier = VerifierOptions.verifierOfBootstrappedNode(inForceSet, trust);
        OperatorCredential credential = OperatorOptions.credential(masterSecret);
        Instant deadline = Instant.now().plus(Duration.ofMillis(Math.round(timeoutMinutes * 60_000)));
        Map<String, String> before = new HashMap<>();
        Set<String> done = new HashSet<>();
        Set<String> noted = new HashSet<>();
        Set<String> missing = Set.of(endpoint + " (join service: no answer yet)");
        String unreachable = null;
        while (true) {
            List<NodeAttestationStatus> nodes;
            try (OperatorConnection connection = new OperatorConnection(endpoint, verifier, credential)) {
                OperatorCall operator = new OperatorCall(connection, endpoint, CALL_TIMEOUT);
                if (!operator.connect(console)) {
                    throw new ServiceRejectedDuringWait();
                }
                nodes = ClusterStatusCommand.nodes(operator);
                unreachable = null;
            } catch (CliFailure e) {
                if (!e.getMessage().equals(unreachable)) {
                    console.println("join service: " + e.getMessage() + "; asking again");
                    unreachable = e.getMessage();
                }
                nodes = null;
            }
            if (nodes != null) {
                missing = new TreeSet<>();
                for (NodeAttestationStatus node : nodes) {
                    String name = node.getName();
                    if (node.getState().equals(REVOKED)) {
                        if (noted.add(name)) {
                            console.println(name + ": revoked; ignored");
                        }
                    } else if (node.getState().equals(ATTESTED) && node.getImageVersion().equals(version)) {
                        if (done.add(name)) {
                            String from = before.get(name);
                            console.println(name + ": " + (from == null ? "" : from + " -> ") + version);
                        }
                    } else {
                        if (!node.getImageVersion().isEmpty()) {
                            before.putIfAbsent(name, node.getImageVersion());
                        }
                        missing.add(name);
                    }
                }
                if (missing.isEmpty()) {
                    return missing;
                }
            }
            if (Instant.now().plusSeconds(pollSeconds).isAfter(deadline)) {
                return missing;
            }
            Thread.sleep(Duration.ofSeconds(pollSeconds).toMillis());
        }
    }

    /** The join service failed verification while the nodes were awaited: exit 1, the REJECTED line printed. */
    private static final class ServiceRejectedDuringWait extends RuntimeException {
    }
}
