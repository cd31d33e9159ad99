package dev.sextant.nodeboot.kubernetes;

import dev.sextant.housekeeping.componentconfig.ComponentSettings;
import dev.sextant.housekeeping.componentconfig.ConfigApplier;
import dev.sextant.housekeeping.componentconfig.ConfigFile;
import io.micronaut.core.annotation.Nullable;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.sextant.diskcrypt.SecretFiles;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs k3s: {@code server} over the cluster's etcd (or {@code server --cluster-init} without one) for the
 * first node, {@code server --server URL --token-file F}
 * for another control-plane node and {@code agent --server URL --token-file F} for a worker, after
 * writing its config.yaml from typed settings. k3s keeps running after the bootstrapper is done. The
 * join token goes to k3s in a 0600 file, never on its command line, which every process may read in
 * /proc.
 */
@Singleton
public final class K3sDriver implements KubernetesDriver {
    private static final Logger LOG = LoggerFactory.getLogger(K3sDriver.class);

    private final K3sSettings settings;
    private final ConfigApplier config;
    private final ComponentSettings components;

    /** Without component settings: k3s' config.yaml only, the kubelet on its defaults. */
    public K3sDriver(K3sSettings settings) {
        this(settings, new ConfigApplier(), null);
    }

    @Inject
    public K3sDriver(K3sSettings settings, ConfigApplier config, @Nullable ComponentSettings components) {
        this.settings = settings;
        this.config = config;
        this.components = components;
    }

    @Override
    public DriverResult initCluster(ClusterSettings cluster) throws InterruptedException {
        if (!Files.isExecutable(settings.binary())) {
            return notInstalled();
        }
        try {
            writeConfig(K3sConfig.forCluster(cluster, settings.kubeconfig().toString()));
            // --cluster-init tells k3s to initialize a new etcd cluster of its own, which selects its embedded etcd
            // (docs.k3s.io/datastore): over the cluster's etcd it must be absent, so the state lives there only.
            Process k3s = start(cluster.datastore().isPresent() ? List.of("server") : List.of("server", "--cluster-init"));
            return awaitKubeconfig(k3s);
        } catch (IOException e) {
            return new DriverResult.Failed("starting k3s server: " + e.getMessage());
        }
    }

    @Override
    public DriverResult joinCluster(JoinSettings join) throws InterruptedException {
        if (!Files.isExecutable(settings.binary())) {
            return notInstalled();
        }
        try {
            writeConfig(K3sConfig.forJoin(join, settings.kubeconfig().toString()));
            String mode = join.controlPlane() ? "server" : "agent";
            Process k3s = start(List.of(mode, "--server", join.serverUrl(), "--token-file", tokenFile(join.token()).toString()));
            // A joining k3s keeps running; one that dies at once (bad token, unreachable server) failed.
            if (k3s.waitFor(settings.joinSettle().toMillis(), TimeUnit.MILLISECONDS) && k3s.exitValue() != 0) {
                return new DriverResult.Failed("k3s " + mode + " exited with " + k3s.exitValue() + ", see " + logFile());
            }
            return new DriverResult.Started(new byte[0]);
        } catch (IOException e) {
            return new DriverResult.Failed("starting k3s: " + e.getMessage());
        }
    }

    /**
     * The first server restarts over its datastore as config.yaml names it (the cluster's etcd, which must be
     * serving already; or k3s' own, which k3s finds without --cluster-init); a joined
     * server or agent connects again to the server it joined.
     */
    @Override
    public DriverResult restart(RestartSettings restart) throws InterruptedException {
        if (!installed()) {
            return notInstalled();
        }
        try {
            List<String> args = restart.firstServer() ? List.of("server")
                    : List.of(restart.controlPlane() ? "server" : "agent", "--server", restart.serverUrl(),
                    "--token-file", tokenFile(restart.token()).toString());
            Process k3s = start(args);
            if (k3s.waitFor(settings.joinSettle().toMillis(), TimeUnit.MILLISECONDS) && k3s.exitValue() != 0) {
                return new DriverResult.Failed("k3s " + args.get(0) + " exited with " + k3s.exitValue() + " on restart, see " + logFile());
            }
            return new DriverResult.Started(new byte[0]);
        } catch (IOException e) {
            return new DriverResult.Failed("restarting k3s: " + e.getMessage());
        }
    }

    @Override
    public boolean installed() {
        return Files.isExecutable(settings.binary());
    }

    private DriverResult notInstalled() {
        LOG.warn("Kubernetes: not installed ({} is missing or not executable)", settings.binary());
        return new DriverResult.NotInstalled(settings.binary() + " is missing or not executable");
    }

    /** Idempotent: unchanged files are not rewritten, changes are logged as a diff (ConfigApplier). */
    private void writeConfig(K3sConfig k3s) throws IOException {
        if (components != null) {
            config.apply(ConfigFile.of(components.kubeletConfigFile(), components.kubelet().render(), false));
            k3s = k3s.withKubeletConfig(components.kubeletConfigFile());
        }
        config.apply(k3s.file(settings.configFile()));
    }

    /** The token beside config.yaml, 0600, rewritten at every start. */
    private Path tokenFile(String token) throws IOException {
        Path file = settings.configFile().toAbsolutePath().resolveSibling("token");
        Files.createDirectories(file.getParent());
        Files.deleteIfExists(file);
        return SecretFiles.write(file, token.getBytes(StandardCharsets.US_ASCII));
    }

    private Process start(List<String> args) throws IOException {
        List<String> argv = new ArrayList<>();
        argv.add(settings.binary().toString());
        argv.addAll(args);
        argv.add("--config");
        argv.add(settings.configFile().toString());
        LOG.info("Starting k3s {} (output in {})", args.get(0), logFile());
        return new ProcessBuilder(argv).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile().toFile())).start();
    }

    private DriverResult awaitKubeconfig(Process k3s) throws InterruptedException, IOException {
        long deadline = System.nanoTime() + settings.startTimeout().toNanos();
        while (System.nanoTime() < deadline) {
            if (Files.isRegularFile(settings.kubeconfig()) && Files.size(settings.kubeconfig()) > 0) {
                return new DriverResult.Started(Files.readAllBytes(settings.kubeconfig()));
            }
            if (!k3s.isAlive() && k3s.exitValue() != 0) {
                return new DriverResult.Failed("k3s server exited with " + k3s.exitValue() + ", see " + logFile());
            }
            Thread.sleep(100);
        }
        return new DriverResult.Failed("no kubeconfig at " + settings.kubeconfig() + " after "
                + settings.startTimeout().toSeconds() + " s, see " + logFile());
    }

    Path logFile() {
        return settings.configFile().toAbsolutePath().resolveSibling("k3s.log");
    }
}
