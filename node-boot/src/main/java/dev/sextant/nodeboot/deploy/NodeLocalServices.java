package dev.sextant.nodeboot.deploy;

import dev.sextant.attestation.policy.MeasurementsException;
import dev.sextant.attestation.policy.MeasurementsFile;
import dev.sextant.diskcrypt.CommandRunner;
import dev.sextant.diskcrypt.SecretFiles;
import dev.sextant.etcd.pki.EtcdTlsFiles;
import jakarta.inject.Singleton;
import dev.sextant.serviceconfig.JoinServiceConfig;
import dev.sextant.serviceconfig.KmsConfig;
import dev.sextant.serviceconfig.ServerPorts;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * The cluster's etcd member, the KMS and the join service as services of this node, for a control plane
 * without Kubernetes: their configuration and secrets go to files under {@link NodeLocalSettings#dir()}
 * (0600 for secrets; on the encrypted state disk, so they survive a reboot), then systemd starts the
 * image's units for them: sextant-etcd.service first, and once etcd answers, sextant-kms.service and
 * sextant-join.service. They outlive the bootstrapper, which exits after init. The join service reaches
 * etcd on loopback with a client certificate of the etcd CA, which is derived from the master secret
 * ({@link ControlPlaneEtcd}); it issues no bootstrap tokens (there is no API server to honour them) and
 * signs kubelet certificates with a cluster CA made here, as k3s would have made one.
 */
@Singleton
public final class NodeLocalServices implements Deployer {
    private static final String WRITTEN_BY = "written by the Sextant bootstrapper at init";
    private static final List<String> KMS = List.of("sextant-kms.service");
    private static final List<String> KMS_AND_JOIN = List.of("sextant-kms.service", "sextant-join.service");
    private final NodeLocalSettings settings;
    private final CommandRunner runner;
    private final EtcdProbe probe;
    private final ControlPlaneEtcd etcd;

    public NodeLocalServices(NodeLocalSettings settings, CommandRunner runner, EtcdProbe probe) {
        this.settings = settings;
        this.runner = runner;
        this.probe = probe;
        this.etcd = new ControlPlaneEtcd(settings);
    }

    @Override
    public DeployedServices deploy(ServicesInput input) throws ClusterServicesException, InterruptedException {
        boolean join = input.joinMeasurements().getSignature().size() > 0;
        EtcdTlsFiles joinClient;
        try {
            Path kms = Files.createDirectories(settings.dir().resolve("kms"));
            SecretFiles.write(kms.resolve("mastersecret"), input.masterSecret());
            SecretFiles.write(kms.resolve("salt"), input.masterSalt());
            Files.writeString(settings.dir().resolve("kms.properties"), kmsConfig(kms).toPropertiesText(WRITTEN_BY));
            joinClient = etcd.prepare(etcd.create(input.nodeName()), input.masterSecret(), input.masterSalt());
            if (join) {
                Files.writeString(settings.dir().resolve("join.properties"),
                        joinConfig(input, joinClient).toPropertiesText(WRITTEN_BY));
            }
        } catch (IOException | IllegalArgumentException e) {
            throw new ClusterServicesException("writing the service configuration under " + settings.dir() + ": "
                    + e.getMessage(), e);
        }
        EtcdStanding standing = startEtcd(joinClient);
        List<String> units = join ? KMS_AND_JOIN : KMS;
        start(units);
        awaitListening(units, join ? List.of(settings.kmsPort(), settings.joinPort()) : List.of(settings.kmsPort()));
        String etcdLine = "etcd " + standing.label() + " at " + etcd.clientEndpoint();
        return new DeployedServices(join ? etcdLine + ", KMS and join service running as services of this node"
                + " (Kubernetes absent); join service on :" + settings.joinPort()
                : etcdLine + " and KMS started; join service NOT started: the init request's measurements were not signed"
                + " (give FILE.sig beside --measurements and --measurements-key)", standing);
    }

    /**
     * After a reboot: the configuration, secrets, bindings, cluster CA and etcd's data written at init are
     * on the state disk. etcd's certificates are issued again from the master secret there, etcd starts
     * again on its data, then the KMS and the join service, with the same keys.
     */
    public DeployedServices restart() throws ClusterServicesException, InterruptedException {
        boolean join = Files.exists(settings.dir().resolve("join.properties"));
        if (!Files.exists(settings.dir().resolve("kms.properties"))) {
            throw new ClusterServicesException("no service configuration under " + settings.dir()
                    + " on the state disk; the KMS cannot start again");
        }
        Optional<EtcdMemberIdentity> identity;
        byte[] secret = new byte[0];
        byte[] salt = new byte[0];
        try {
            identity = etcd.identity();
            if (identity.isPresent()) {
                secret = Files.readAllBytes(settings.dir().resolve("kms/mastersecret"));
                salt = Files.readAllBytes(settings.dir().resolve("kms/salt"));
            }
        } catch (IOException e) {
            throw new ClusterServicesException("reading etcd's member and the master secret under " + settings.dir() + ": "
                    + e.getMessage(), e);
        }
        EtcdStanding standing = EtcdStanding.NONE;
        if (identity.isPresent()) {
            try {
                standing = startEtcd(etcd.prepare(identity.get(), secret, salt));
            } finally {
                Arrays.fill(secret, (byte) 0);
            }
        }
        List<String> units = join ? KMS_AND_JOIN : KMS;
        start(units);
        awaitListening(units, join ? List.of(settings.kmsPort(), settings.joinPort()) : List.of(settings.kmsPort()));
        List<String> started = new ArrayList<>(identity.isPresent() ? List.of(ControlPlaneEtcd.UNIT) : List.of());
        started.addAll(units);
        return new DeployedServices(String.join(", ", started) + " started again from " + settings.dir()
                + (identity.isPresent() ? "; etcd " + standing.label() + " with certificates issued afresh" : ""), standing);
    }

    /**
     * Starts the etcd unit and waits until the member answers the join service's client certificate: the
     * join service must find its store serving. The unit is Type=notify, so systemctl returns once etcd
     * says it serves, or fails when etcd exits first.
     */
    private EtcdStanding startEtcd(EtcdTlsFiles joinClient) throws ClusterServicesException, InterruptedException {
        start(List.of(ControlPlaneEtcd.UNIT));
        try {
            return EtcdStanding.of(probe.await(etcd.clientEndpoint(), joinClient, settings.readyTimeout()));
        } catch (IOException e) {
            CommandRunner.Result status = systemctl("status", List.of("--no-pager", "--lines=30", ControlPlaneEtcd.UNIT));
            throw new ClusterServicesException("etcd (" + ControlPlaneEtcd.UNIT + ") does not answer at " + etcd.clientEndpoint()
                    + " with the join service's client certificate " + settings.readyTimeout().toSeconds() + " s after it started ("
                    + e.getMessage() + "); its log: journalctl -u " + ControlPlaneEtcd.UNIT + "; systemctl status:\n"
                    + status.stdout() + status.stderr(), e);
        }
    }

    private KmsConfig kmsConfig(Path kms) {
        // The join service's management port is 9091 on this node.
        return new KmsConfig(ServerPorts.of(settings.kmsPort(), 9092), kms.resolve("mastersecret"), kms.resolve("salt"), false);
    }

    private JoinServiceConfig joinConfig(ServicesInput input, EtcdTlsFiles etcdClient) throws IOException, ClusterServicesException {
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
        NodeLocalClusterCa ca = NodeLocalClusterCa.create(dir);

        JoinServiceConfig defaults = JoinServiceConfig.defaults();
        // No Kubernetes: tickets carry no bootstrap token; bindings go to this node's etcd member.
        JoinServiceConfig.Kubernetes noKubernetes = new JoinServiceConfig.Kubernetes(false,
                defaults.kubernetes().distribution(), Optional.empty(), defaults.kubernetes().namespace(),
                defaults.kubernetes().timeout());
        Optional<String> tpm = settings.joinTpm().isBlank() ? Optional.empty() : Optional.of(settings.joinTpm());
        return defaults.toBuilder()
                .ports(new ServerPorts(Optional.of(settings.joinPort()), Optional.empty()))
                .kubernetes(noKubernetes)
                .kms(new JoinServiceConfig.Kms("127.0.0.1:" + settings.kmsPort(), defaults.kms().deadline()))
                .apiServerEndpoint(input.apiServerEndpoint())
                .measurementSaltFile(salt)
                .measurements(new JoinServiceConfig.Measurements(measurements, publicKey, defaults.measurements().pollInterval()))
                .ekCaFile(ekCa)
                .ca(new JoinServiceConfig.Ca(ca.certificate(), ca.key()))
                .controlPlaneDir(Files.createDirectories(dir.resolve("pki")))
                // The join service claims these for the init node before it serves, so no other AK can.
                .initNode(Optional.ofNullable(input.initNode()).map(n ->
                        new JoinServiceConfig.InitNode(n.akNameHex(), n.nodeName(), n.diskUuids())))
                .atls(new JoinServiceConfig.Atls(true, tpm, defaults.atls().serverEventLog()))
                // The cluster store: this node's etcd member on loopback, which its member certificate names.
                .etcd(new JoinServiceConfig.Etcd(List.of("https://" + etcd.clientEndpoint()), etcdClient.caFile(),
                        etcdClient.certFile(), etcdClient.keyFile(), defaults.etcd().deadline()))
                .controlPlanes(input.controlPlanes())
                .build();
    }

    /** The image's units read {@code <dir>/etcd.env}, {@code <dir>/kms.properties} and {@code <dir>/join.properties}. */
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
