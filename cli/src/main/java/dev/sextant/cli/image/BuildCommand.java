package dev.sextant.cli.image;

import dev.sextant.attestation.policy.MeasurementsFile;
import dev.sextant.cli.failure.CliFailure;
import dev.sextant.cli.input.PemKeys;
import dev.sextant.imagebuilder.BuildRequest;
import dev.sextant.imagebuilder.BuildResult;
import dev.sextant.imagebuilder.EkCaBundle;
import dev.sextant.imagebuilder.ImageBuilder;
import dev.sextant.imagebuilder.ImageVersion;
import dev.sextant.imagebuilder.NodeBootJars;
import dev.sextant.imagebuilder.NodeSoftware;
import dev.sextant.measuredboot.predict.PcrPredictor;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.stream.Stream;

@Command(name = "build",
        footer = {"  sextant image build --out out/image --image-version 1.4.0 \\",
                "      --ek-ca ca/ca-cert.pem --signing-key keys/measurements-key.pem"},
        description = {"Build the node image with mkosi (UKI, erofs root under dm-verity) shipping the node software",
                "and the EK CA its nodes verify their join service's TPM against (--ek-ca; PCR 11 covers it),",
                "with its version in the image's os-release (--image-version; PCR 11 covers it too),",
                "then write DIR/measurements.json: a measurement set (format 2) of this one image, named by its",
                "version, with the PCRs predicted from it; 'sextant measurements sign' and join services read it",
                "(and DIR/measurements.json.sig with --signing-key)."})
public final class BuildCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--out", paramLabel = "DIR", description = "output directory (default: ${DEFAULT-VALUE})")
    Path out = Path.of("out/image");

    @Option(names = "--image-version", paramLabel = "V", description = {"the image's version: 1-64 of 0-9 a-z . _ -, starting with a digit or letter",
            "(default: the build's UTC time, YYYYMMDD.HHMMSS; an unchanged image keeps its version)"})
    String imageVersion;

    @Option(names = "--signing-key", paramLabel = "PEM", description = "sign measurements.json with this private key (Ed25519 or ECDSA P-256)")
    Path signingKey;

    @Option(names = "--repo", paramLabel = "DIR", description = "source tree holding mkosi/ and node-boot/ (default: the nearest one above the working directory)")
    Path repo;

    @Option(names = "--node-lib", paramLabel = "DIR", description = "ship these jars instead of node-boot/target's (with --node-main)")
    Path nodeLib;

    @Option(names = "--node-main", paramLabel = "CLASS", description = "main class of --node-lib (default: ${DEFAULT-VALUE})")
    String nodeMain = NodeSoftware.NODE_BOOT_MAIN;

    @Option(names = "--k3s", paramLabel = "FILE", description = "ship this k3s binary as /usr/local/bin/k3s (without it nodes report \"Kubernetes: not installed\")")
    Path k3s;

    @Option(names = "--ek-ca", paramLabel = "PEM", description = {"EK CA certificate(s) the nodes verify their join service's TPM against (repeatable),",
            "shipped as /usr/share/sextant/ek-ca.pem; without one the nodes join no cluster"})
    List<Path> ekCas = List.of();

    @Option(names = "--force", description = "rebuild even when the inputs did not change")
    boolean force;

    @Option(names = "--mkosi-arg", paramLabel = "ARG", description = "extra mkosi argument (repeatable), e.g. -ff to drop mkosi's cache")
    List<String> mkosiArgs = List.of();

    @Override
    public Integer call() throws Exception {
        PrintWriter stdout = spec.commandLine().getOut();
        // Checked before the build, which takes minutes, rather than after it.
        String signingKeyPem = signingKey == null ? null : PemKeys.privateKey("--signing-key", signingKey,
                "pass the measurements-key.pem that `sextant measurements keygen` wrote");
        EkCaBundle ekCa = EkCaBundle.read(ekCas);
        Optional<ImageVersion> version = imageVersion();
        Path root = repoRoot();
        BuildRequest request = BuildRequest.forRepo(root, out, Optional.of(nodeSoftware(root, stdout)))
                .withMkosiArgs(mkosiArgs, force).withK3s(Optional.ofNullable(k3s)).withEkCa(ekCa)
                .withImageVersion(version);
        // -ff makes mkosi drop its cache first: as cold as an empty cache directory.
        boolean coldCache = isEmpty(request.cacheDir()) || mkosiArgs.contains("-ff");
        BuildResult result = new ImageBuilder(line -> { stdout.println(line); stdout.flush(); }).build(request);
        if (signingKey != null) {
            MeasurementsFile.sign(result.measurements(), signingKeyPem);
        }
        report(stdout, result, coldCache);
        return 0;
    }

    private Optional<ImageVersion> imageVersion() {
        try {
            return Optional.ofNullable(imageVersion).map(ImageVersion::new);
        } catch (IllegalArgumentException e) {
            throw new CliFailure("--image-version: " + e.getMessage());
        }
    }

    private NodeSoftware nodeSoftware(Path root, PrintWriter stdout) throws Exception {
        if (nodeLib == null) {
            return new NodeBootJars(root).locateOrBuild(line -> { stdout.println(line); stdout.flush(); });
        }
        try (Stream<Path> files = Files.list(nodeLib)) {
            List<Path> jars = files.filter(f -> f.toString().endsWith(".jar")).sorted().toList();
            if (jars.isEmpty()) {
                throw new CliFailure("--node-lib " + nodeLib + " holds no jars: pass the directory of the node software's jars");
            }
            return new NodeSoftware(jars, nodeMain);
        }
    }

    private void report(PrintWriter stdout, BuildResult result, boolean coldCache) {
        for (int pcr : PcrPredictor.PCRS) {
            stdout.printf("PCR %2d  %s%n", pcr, HexFormat.of().formatHex(result.prediction().pcr(pcr)));
        }
        String kind = result.reused() ? "reused (inputs unchanged)" : coldCache ? "cold (empty mkosi cache)" : "cached";
        stdout.printf("image build %s: %.1f s total (%s)%n", kind, result.total().toMillis() / 1000.0,
                String.join(", ", result.stages().entrySet().stream()
                        .map(e -> String.format("%s %.1f s", e.getKey(), e.getValue().toMillis() / 1000.0)).toList()));
        stdout.println("image:        " + result.image() + " (version " + result.imageVersion() + ")");
        stdout.println("measurements: " + result.measurements()
                + (signingKey == null ? "" : " (signed: " + MeasurementsFile.signatureFile(result.measurements()) + ")"));
    }

    private Path repoRoot() {
        if (repo != null) {
            if (!Files.isRegularFile(repo.resolve("mkosi/mkosi.conf"))) {
                throw new CliFailure("--repo " + repo + " has no mkosi/mkosi.conf: pass the root of the Sextant source tree");
            }
            return repo.toAbsolutePath().normalize();
        }
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve("mkosi/mkosi.conf"))) {
                return dir;
            }
        }
        throw new CliFailure("no mkosi/mkosi.conf in the working directory or above it: run it in the Sextant source tree, or pass --repo DIR");
    }

    private static boolean isEmpty(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            return true;
        }
        try (Stream<Path> entries = Files.list(dir)) {
            return entries.findAny().isEmpty();
        }
    }
}
