package dev.sextant.cli.upgrade;

import dev.sextant.attestation.policy.MeasurementsException;
import dev.sextant.clusterservices.upgrade.RolloutSleeper;
import dev.sextant.clusterservices.upgrade.ServicesUpgrade;
import dev.sextant.clusterservices.upgrade.SignedMeasurementsFile;
import dev.sextant.clusterservices.upgrade.UpgradeOutcome;
import dev.sextant.clusterservices.upgrade.UpgradeRequest;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.util.ClientBuilder;
import io.kubernetes.client.util.KubeConfig;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code sextant upgrade apply --join-service IMAGE --kms IMAGE [--measurements FILE] [--no-wait]}:
 * other tools call it with exactly these options. Prints {@code OK: ...} and exits 0, or prints
 * {@code ROLLED BACK: ...} / {@code REJECTED: ...} / {@code FAILED: ...} with the reason and exits 1.
 */
@Command(name = "apply", mixinStandardHelpOptions = true,
        description = "Set new join service and KMS images, by digest (and, with --measurements, new signed measurements), "
                + "wait for the DaemonSet to roll out, and roll back to what was there if it does not.",
        footer = {"  sextant upgrade apply --join-service registry.example/join@sha256:DIGEST \\",
                "      --kms registry.example/kms@sha256:DIGEST --measurements m.json"},
        exitCodeList = {" 0:OK: the new images (and measurements) are rolled out",
                " 1:ROLLED BACK, REJECTED or FAILED: <reason> (on stdout)",
                " 2:usage error, or a file that cannot be used (stderr)"})
public final class ApplyCommand implements Callable<Integer> {
    /** A DaemonSet rollout takes tens of seconds; a faster poll only loads the API server. */
    static final Duration POLL_INTERVAL = Duration.ofSeconds(2);

    @Spec
    CommandSpec spec;

    @Option(names = "--join-service", required = true, paramLabel = "IMAGE", description = "the join service's new image, as NAME@sha256:DIGEST")
    String joinServiceImage;

    @Option(names = "--kms", required = true, paramLabel = "IMAGE", description = "the KMS's new image, as NAME@sha256:DIGEST")
    String kmsImage;

    @Option(names = "--measurements", paramLabel = "FILE",
            description = "new measurements; FILE.sig must verify with the cluster's measurements key before anything changes "
                    + "(or with the next key the measurements in force name: a key rotation, after which the cluster's "
                    + "measurements key ConfigMap holds that key)")
    Path measurements;

    @Option(names = "--no-wait", description = "apply and return without waiting for the rollout (and so without rollback)")
    boolean noWait;

    @Option(names = "--kubeconfig", paramLabel = "FILE",
            description = "kubeconfig (default: $KUBECONFIG, then ~/.kube/config)")
    Path kubeconfig;

    @Option(names = "--timeout", paramLabel = "DURATION", defaultValue = "5m", converter = DurationConverter.class,
            description = "how long the rollout may take before it is rolled back, e.g. 90s, 5m (default: ${DEFAULT-VALUE})")
    Duration timeout;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        try {
            Optional<SignedMeasurementsFile> signed = measurements == null ? Optional.empty()
                    : Optional.of(SignedMeasurementsFile.read(measurements));
            UpgradeRequest request = new UpgradeRequest(joinServiceImage, kmsImage, signed, timeout, noWait);
            UpgradeOutcome outcome = new ServicesUpgrade(client(), Clock.systemUTC(), RolloutSleeper.REAL, POLL_INTERVAL)
                    .upgrade(request);
            out.println(label(outcome.result()) + ": " + outcome.message());
            return outcome.ok() ? 0 : 1;
        } catch (IllegalArgumentException e) {
            // An image by tag (or another refused value): checked before the cluster is read.
            out.println("REJECTED: " + e.getMessage() + "; nothing was changed");
            return 1;
        } catch (MeasurementsException e) {
            out.println("REJECTED: the new measurements: " + e.getMessage() + "; nothing was changed");
            return 1;
        } catch (ApiException e) {
            // Code 0: no HTTP answer at all (connection refused, TLS, timeout).
            String what = e.getCode() == 0 ? "cannot reach the Kubernetes API ("
                    + (e.getCause() != null ? e.getCause().getMessage() : e.getMessage()) + ")"
                    : "the Kubernetes API answered HTTP " + e.getCode() + " reading the cluster's services"
                    + (e.getMessage() == null ? "" : " (" + e.getMessage().lines().findFirst().orElse("") + ")");
            out.println("FAILED: " + what + "; nothing was changed");
            return 1;
        }
    }

    private static String label(UpgradeOutcome.Result result) {
        return switch (result) {
            case SUCCEEDED, APPLIED_NOT_WAITED -> "OK";
            case ROLLED_BACK -> "ROLLED BACK";
            case ROLLBACK_FAILED -> "FAILED";
        };
    }

    private ApiClient client() throws IOException {
        Path file = kubeconfigFile();
        try (Reader reader = Files.newBufferedReader(file)) {
            KubeConfig config = KubeConfig.loadKubeConfig(reader);
            config.setFile(file.toFile()); // relative certificate paths are relative to the kubeconfig
            return ClientBuilder.kubeconfig(config).build();
        } catch (java.nio.file.NoSuchFileException e) {
            throw new IOException("kubeconfig " + file + " does not exist (give --kubeconfig or set KUBECONFIG)", e);
        } catch (IOException e) {
            throw new IOException("cannot read kubeconfig " + file + ": " + e.getMessage(), e);
        }
    }

    private Path kubeconfigFile() {
        if (kubeconfig != null) {
            return kubeconfig;
        }
        String env = System.getenv("KUBECONFIG");
        if (env != null && !env.isBlank()) {
            // kubectl merges a list; the first file is where the current context normally lives.
            return Path.of(env.split(java.io.File.pathSeparator)[0]);
        }
        return Path.of(System.getProperty("user.home"), ".kube", "config");
    }

    /** "90s", "5m", "1h", or ISO-8601 ("PT5M"). */
    static final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
        @Override
        public Duration convert(String value) {
            String v = value.trim().toLowerCase(Locale.ROOT);
            try {
                if (v.startsWith("pt")) {
                    return Duration.parse(v);
                }
                long n = Long.parseLong(v.substring(0, v.length() - 1));
                return switch (v.charAt(v.length() - 1)) {
                    case 's' -> Duration.ofSeconds(n);
                    case 'm' -> Duration.ofMinutes(n);
                    case 'h' -> Duration.ofHours(n);
                    default -> throw new CommandLine.TypeConversionException("'" + value + "' is not a duration like 90s, 5m or 1h");
                };
            } catch (NumberFormatException | DateTimeParseException | StringIndexOutOfBoundsException e) {
                throw new CommandLine.TypeConversionException("'" + value + "' is not a duration like 90s, 5m or 1h");
            }
        }
    }
}
