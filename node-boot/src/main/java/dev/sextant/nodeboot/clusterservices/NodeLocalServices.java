package dev.sextant.nodeboot.clusterservices;

import dev.sextant.attestation.policy.MeasurementsException;
import dev.sextant.attestation.policy.MeasurementsFile;
import dev.sextant.nodeboot.diskcrypt.CommandRunner;
import dev.sextant.nodeboot.diskcrypt.SecretFiles;
import jakarta.inject.Singleton;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

/**
 * The KMS and the join service as services of this node, for a control plane without Kubernetes:
 * their configuration and secrets go to files under {@link NodeLocalSettings#dir()} (0600 for
 * secrets; on the encrypted state disk, so they survive a reboot), then systemd starts the image's units for them (sextant-kms.service, sextant-join.service). They outlive the bootstrapper, which
 * exits after init. The join service keeps its bindings in files and issues no bootstrap tokens
 * (there is no API server to honour them); it signs kubelet certificates with a cluster CA made here,
 * as k3s would have made one.
 */
@Singleton
public final class NodeLocalServices implements Deployer {
    private final NodeLocalSettings settings;
    private final CommandRunner runner;

    public NodeLocalServices(NodeLocalSettings settings, CommandRunner runner) {
        this.settings = settings;
        this.runner = runner;
    }

    @Override
    public String deploy(ServicesInput input) throws ClusterServicesException, InterruptedException {
        boolean join = input.joinMeasurements().getSignature().size() > 0;
        try {
            Path kms = Files.createDirectories(settings.dir().resolve("kms"));
            SecretFiles.write(kms.resolve("mastersecret"), input.masterSecret());
            SecretFiles.write(kms.resolve("salt"), input.masterSalt());
            write(settings.dir().resolve("kms.properties"), kmsProperties(kms));
            if (join) {
                write(settings.dir().resolve("join.properties"), joinProperties(input));
            }
        } catch (IOException e) {
            throw new ClusterServicesException("writing the service configuration under " + settings.dir() + ": "
                    + e.getMessage(), e);
        }
        List<String> units = join ? List.of("sextant-kms.service", "sextant-join.service") : List.of("sextant-kms.service");
        start(units);
        awaitListening(units, join ? List.of(settings.kmsPort(), settings.joinPort()) : List.of(settings.kmsPort()));
        return join ? "KMS and join service running as services of this node (Kubernetes absent); join service on :"
                + settings.joinPort()
                : "KMS started; join service NOT started: the init request's measurements were not signed"
                + " (give FILE.sig beside --measurements and --measurements-key)";
    }

    /**
     * After a reboot: the configuration, secrets, bindings and cluster CA written at init are on the
     * state disk, so starting the units again brings back the same services with the same keys.
     */
    public String restart() throws ClusterServicesException, InterruptedException {
        boolean join = Files.exists(settings.dir().resolve("join.properties"));
        if (!Files.exists(settings.dir().resolve("kms.properties"))) {
            throw new ClusterServicesException("no service configuration under " + settings.dir()
                    + " on the state disk; the KMS cannot start again");
        }
        List<String> units = join ? List.of("sextant-kms.service", "sextant-join.service") : List.of("sextant-kms.service");
        start(units);
        awaitListening(units, join ? List.of(settings.kmsPort(), settings.joinPort()) : List.of(settings.kmsPort()));
        return String.join(" and ", units) + " started again from " + settings.dir();
    }

    private Properties kmsProperties(Path kms) {
        Properties p = new Properties();
        p.setProperty("sextant.kms.master-secret-file", kms.resolve("mastersecret").toString());
        p.setProperty("sextant.kms.salt-file", kms.resolve("salt").toString());
        p.setProperty("grpc.server.port", Integer.toString(settings.kmsPort()));
        // The join service's management port is 9091 on this node.
        p.setProperty("micronaut.server.port", "9092");
        return p;
    }

    private Properties joinProperties(ServicesInput input) throws IOException, ClusterServicesException {
        Path dir = Files.createDirectories(settings.dir().resolve("join"));
        // The measurements sit alone in their directory: the join service watches it for signed updates.
        Path measurements = Files.createDirectories(dir.resolve("measurements")).resolve("measurements.json");
        Files.write(measurements, input.joinMeasurements().getJson().toByteArray());
        Files.write(MeasurementsFile.signatureFile(measurements), input.joinMeasurements().getSignature().toByteArray());
        Path publicKey = Files.writeString(dir.resolve("measurements.pub"), input.joinMeasurements().getPublicKeyPem());
        try {
            MeasurementsFile.verify(measurements, input.joinMeasurements().getPublicKeyPem());
        } catch (MeasurementsException e) {
            throw new ClusterServicesException("the join measurements from the init request: " + e.getMessage(), e);
        }
        Path ekCa = Files.writeString(dir.resolve("ek-ca.pem"), input.ekCaPem());
        Path salt = dir.resolve("measurementSalt");
        SecretFiles.write(salt, input.measurementSalt());
        ClusterCa ca = ClusterCa.create(dir);

        Properties p = new Properties();
        p.setProperty("grpc.server.port", Integer.toString(settings.joinPort()));
        p.setProperty("sextant.join.kubernetes.enabled", "false");
        p.setProperty("sextant.join.records-dir", dir.resolve("records").toString());
        p.setProperty("sextant.join.kms.endpoint", "127.0.0.1:" + settings.kmsPort());
        p.setProperty("sextant.join.api-server-endpoint", input.apiServerEndpoint());
        p.setProperty("sextant.join.measurement-salt-file", salt.toString());
        p.setProperty("sextant.join.measurements.file", measurements.toString());
        p.setProperty("sextant.join.measurements.public-key-file", publicKey.toString());
        p.setProperty("sextant.join.ek-ca-file", ekCa.toString());
        p.setProperty("sextant.join.ca.cert-file", ca.certificate().toString());
        p.setProperty("sextant.join.ca.key-file", ca.key().toString());
        p.setProperty("sextant.join.control-plane-dir", Files.createDirectories(dir.resolve("pki")).toString());
        if (input.initNode() != null) {
            // The join service claims these for the init node before it serves (issue 12 item 2).
            p.setProperty("sextant.join.init-node.ak-name", input.initNode().akNameHex());
            p.setProperty("sextant.join.init-node.node-name", input.initNode().nodeName());
            p.setProperty("sextant.join.init-node.disk-uuids", String.join(",", input.initNode().diskUuids()));
        }
        if (!settings.joinTpm().isBlank()) {
            p.setProperty("sextant.join.atls.server-tpm", settings.joinTpm());
        }
        return p;
    }

    private static void write(Path file, Properties properties) throws IOException {
        try (OutputStream out = Files.newOutputStream(file)) {
            properties.store(out, "written by the Sextant bootstrapper at init");
        }
    }

    /** The image's units read {@code <dir>/kms.properties} and {@code <dir>/join.properties}. */
    private void start(List<String> units) throws ClusterServicesException, InterruptedException {
        CommandRunner.Result result = systemctl("start", units);
        if (!result.ok()) {
            throw new ClusterServicesException("systemctl start " + String.join(" ", units) + " failed (exit "
                    + result.exitCode() + "): " + result.stderr().strip());
        }
    }

    /**
     * A started unit is not a serving one (a JVM that dies at start-up still "started"): wait for
     * the ports, and when they stay closed say what systemd knows about the units.
     */
    private void awaitListening(List<String> units, List<Integer> ports) throws ClusterServicesException, InterruptedException {
        long deadline = System.nanoTime() + settings.readyTimeout().toNanos();
        for (int port : ports) {
            while (!listening(port)) {
                if (System.nanoTime() > deadline) {
                    List<String> args = new ArrayList<>(List.of("--no-pager", "--lines=30"));
                    args.addAll(units);
                    CommandRunner.Result status = systemctl("status", args);
                    throw new ClusterServicesException("nothing listens on port " + port + " " + settings.readyTimeout().toSeconds()
                            + " s after starting " + String.join(" ", units) + "; systemctl status:\n" + status.stdout() + status.stderr());
                }
                Thread.sleep(500);
            }
        }
    }

    private static boolean listening(int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 500);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private CommandRunner.Result systemctl(String verb, List<String> args) throws ClusterServicesException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("systemctl", verb));
        command.addAll(args);
        try {
            return runner.run(command, new byte[0]);
        } catch (IOException e) {
            throw new ClusterServicesException("cannot run " + String.join(" ", command) + ": " + e.getMessage(), e);
        }
    }
}
