package dev.sextant.nodeboot.deploy;

import dev.sextant.attestation.policy.MeasurementsException;
import dev.sextant.attestation.policy.MeasurementsFile;
import dev.sextant.diskcrypt.CommandRunner;
import dev.sextant.diskcrypt.SecretFiles;
import dev.sextant.etcd.pki.EtcdTlsFiles;
import dev.sextant.proto.v1.SignedMeasurements;
import jakarta.inject.Singleton;
import dev.sextant.serviceconfig.JoinServiceConfig;
import dev.sextant.serviceconfig.KmsConfig;
import dev.sextant.serviceconfig.ServerPorts;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.io.Reader;

/**
 * The cluster's etcd member, the KMS and the join service as services of this node, for a control plane
 * without Kubernetes, the init node's ({@link #deploy}) and a joining control plane's ({@link #joinControlPlane})
 * alike: their configuration and secrets go to files under {@link NodeLocalSettings#dir()}
 * (0600 for secrets; on the encrypted state disk, so they survive a reboot), then systemd starts the
 * image's units for them: sextant-etcd.service first, and once etcd answers, sextant-kms.service and
 * sextant-join.service. They outlive the bootstrapper, which exits after init. The KMS has no TCP port: it serves
 * on a Unix socket in the RuntimeDirectory its unit makes (0700 root) and answers the join service's uid only. The join service reaches
 * etcd on loopback with a client certificate of the etcd CA, which is derived from the master secret
 * ({@link ControlPlaneEtcd}); it issues no bootstrap tokens (there is no API server to honour them) and
 * signs kubelet certificates with a cluster CA made here, as k3s would have made one.
 */
@Singleton
public final class NodeLocalServices implements Deployer {
    private static final String WRITTEN_BY = "written by the Sextant bootstrapper when this control plane first started its services";
    private static final List<String> KMS = List.of("sextant-kms.service");
    private static final List<String> KMS_AND_JOIN = List.of("sextant-kms.service", "sextant-join.service");
    /**
     * sextant-join.service runs as root (it reads the firmware event log and the node's secret files): the one uid
     * the node-local KMS answers. Other users cannot even reach the socket (its RuntimeDirectory is 0700 root).
     */
    static final int JOIN_SERVICE_UID = 0;
    private final NodeLocalSettings settings;
    private final Systemctl systemctl;
    private final ControlPlaneEtcd etcd;
    private final EtcdUnit etcdUnit;

    public NodeLocalServices(NodeLocalSettings settings, CommandRunner runner, EtcdProbe probe) {
        this.settings = settings;
        this.systemctl = new Systemctl(runner);
        this.etcd = new ControlPlaneEtcd(settings);
        this.etcdUnit = new EtcdUnit(etcd, systemctl, probe, settings.readyTimeout());
    }

    @Override
    public DeployedServices deploy(ServicesInput input) throws ClusterServicesException, InterruptedException {
        // Without a signature the init request's measurements cannot be trusted to admit anyone: no join service.
        Optional<JoinServiceInput> join = input.joinMeasurements().getSignature().isEmpty() ? Optional.empty()
                : Optional.of(new JoinServiceInput(input.joinMeasurements(), input.ekCaPem(), input.measurementSalt(),
                input.apiServerEndpoint(), Optional.ofNullable(input.initNode()).map(n ->
                        new JoinServiceConfig.InitNode(n.akNameHex(), n.nodeName(), n.diskUuids(), n.verifyEndpoint())), input.controlPlanes()));
        return writeAndStart(input.masterSecret(), input.masterSalt(), () -> etcd.create(input.nodeName()), join);
    }

    /**
     * A control plane's join, without Kubernetes: the same services as init's, from its ticket. Its etcd member
     * joins the running cluster the ticket lists (the join service added it as a learner already); its join
     * service checks joining machines against the ticket's measurements and EK CA, and has no init node to claim.
     */
    public DeployedServices joinControlPlane(ControlPlaneInput input) throws ClusterServicesException, InterruptedException {
        // Tickets name an API server only with Kubernetes, which this node runs without; the setting must name one.
        JoinServiceInput join = new JoinServiceInput(input.joinMeasurements(), input.ekCaPem(), input.measurementSalt(),
                input.nodeName() + ":6443", Optional.empty(), JoinServiceConfig.defaults().controlPlanes());
        return writeAndStart(input.masterSecret(), input.masterSalt(), () -> etcd.create(input.nodeName(), input.etcdMembers()),
                Optional.of(join));
    }

    /**
     * What the join service is given beyond what every node-local join service shares.
     *
     * @param initNode      the init node's bindings, claimed before the service serves; empty after init
     * @param controlPlanes the limit the service counts with until it reads the cluster's own from etcd
     */
    private record JoinServiceInput(SignedMeasurements measurements, String ekCaPem, byte[] measurementSalt,
                                    String apiServerEndpoint, Optional<JoinServiceConfig.InitNode> initNode, int controlPlanes) {
    }

    /** The etcd member's identity, kept for every later start as it is made. */
    @FunctionalInterface
    private interface EtcdMemberSource {
        EtcdMemberIdentity create() throws IOException;
    }

    /**
     * Init's and a control plane's join's one way: the KMS's files, etcd's identity, certificates and command
     * line, the join service's configuration (none without signed measurements), then etcd, and once it
     * answers, the KMS and the join service.
     */
    private DeployedServices writeAndStart(byte[] masterSecret, byte[] masterSalt, EtcdMemberSource member,
                                           Optional<JoinServiceInput> join) throws ClusterServicesException, InterruptedException {
        EtcdTlsFiles joinClient;
        try {
            Path kms = Files.createDirectories(settings.dir().resolve("kms"));
            SecretFiles.write(kms.resolve("mastersecret"), masterSecret);
            SecretFiles.write(kms.resolve("salt"), masterSalt);
            KmsConfig kmsConfig = kmsConfig(kms);
            Files.writeString(settings.dir().resolve("kms.properties"), kmsConfig.toPropertiesText(WRITTEN_BY));
            joinClient = etcd.prepare(member.create(), masterSecret, masterSalt);
            if (join.isPresent()) {
                Files.writeString(settings.dir().resolve("join.properties"),
                        joinConfig(join.get(), kmsConfig, joinClient).toPropertiesText(WRITTEN_BY));
            }
        } catch (IOException | IllegalArgumentException e) {
            throw new ClusterServicesException("writing the service configuration under " + settings.dir() + ": "
                    + e.getMessage(), e);
        }
        EtcdStanding standing = etcdUnit.start(joinClient);
        startServices(join.isPresent());
        String etcdLine = "etcd " + standing.label() + " at " + etcd.clientEndpoint();
        return new DeployedServices(join.isPresent() ? etcdLine + ", KMS and join service running as services of this node"
                + " (Kubernetes absent); join service on :" + settings.joinPort()
                : etcdLine + " and KMS started; join service NOT started: the init request's measurements were not signed"
                + " (give FILE.sig beside --measurements and --measurements-key)", standing);
    }

    /**
     * After a reboot: the configuration, secrets, bindings, cluster CA and etcd's data written at the first
     * start (init, or a control plane's join) are on the state disk. etcd's certificates are issued again from
     * the master secret there, etcd starts again on its data, then the KMS and the join service, with the same keys.
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
            socketKmsProperties();
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
                standing = etcdUnit.start(etcd.prepare(identity.get(), secret, salt));
            } finally {
                Arrays.fill(secret, (byte) 0);
            }
        }
        List<String> started = new ArrayList<>(identity.isPresent() ? List.of(ControlPlaneEtcd.UNIT) : List.of());
        started.addAll(startServices(join));
        return new DeployedServices(String.join(", ", started) + " started again from " + settings.dir()
                + (identity.isPresent() ? "; etcd " + standing.label() + " with certificates issued afresh" : ""), standing);
    }

    /**
     * A kms.properties written before the KMS served on a Unix socket names neither the socket nor the uid it
     * answers, and the KMS's defaults (the pod's) would refuse this node's join service: it is written again,
     * with the master-secret files it names. One written since is left as it is.
     */
    private void socketKmsProperties() throws IOException {
        Path file = settings.dir().resolve("kms.properties");
        Properties written = new Properties();
        try (Reader in = Files.newBufferedReader(file)) {
            written.load(in);
        }
        if (written.getProperty(KmsConfig.SOCKET) == null || written.getProperty(KmsConfig.PEER_UIDS) == null) {
            KmsConfig before = KmsConfig.from(Map.of(KmsConfig.MASTER_SECRET_FILE, written.getProperty(KmsConfig.MASTER_SECRET_FILE, ""),
                    KmsConfig.SALT_FILE, written.getProperty(KmsConfig.SALT_FILE, "")));
            Files.writeString(file, kmsConfig(before.masterSecretFile(), before.saltFile()).toPropertiesText("rewritten by the Sextant bootstrapper: the KMS serves on a Unix socket now"));
        }
    }

    /** The KMS, and the join service when it has a configuration, until they listen; returns their units. */
    private List<String> startServices(boolean join) throws ClusterServicesException, InterruptedException {
        List<String> units = join ? KMS_AND_JOIN : KMS;
        systemctl.start(units);
        awaitListening(units, settings.kmsSocket(), join ? List.of(settings.joinPort()) : List.of());
        return units;
    }

    private KmsConfig kmsConfig(Path kms) {
        return kmsConfig(kms.resolve("mastersecret"), kms.resolve("salt"));
    }

    private KmsConfig kmsConfig(Path masterSecret, Path salt) {
        // The join service's management port is 9091 on this node. The KMS answers sextant-join.service's uid only.
        return KmsConfig.of(9092, settings.kmsSocket(), Set.of(JOIN_SERVICE_UID), masterSecret, salt);
    }

    private JoinServiceConfig joinConfig(JoinServiceInput join, KmsConfig kms, EtcdTlsFiles etcdClient)
            throws IOException, ClusterServicesException {
        Path dir = Files.createDirectories(settings.dir().resolve("join"));
        // The measurements sit alone in their directory: the join service watches it for signed updates.
        Path measurements = Files.createDirectories(dir.resolve("measurements")).resolve("measurements.json");
        Files.write(measurements, join.measurements().getJson().toByteArray());
        Files.write(MeasurementsFile.signatureFile(measurements), join.measurements().getSignature().toByteArray());
        Path publicKey = Files.writeString(dir.resolve("measurements.pub"), join.measurements().getPublicKeyPem());
        try {
            MeasurementsFile.verifySet(measurements, join.measurements().getPublicKeyPem());
        } catch (MeasurementsException e) {
            throw new ClusterServicesException("the join measurements: " + e.getMessage(), e);
        }
        Path ekCa = Files.writeString(dir.resolve("ek-ca.pem"), join.ekCaPem());
        Path salt = dir.resolve("measurementSalt");
        SecretFiles.write(salt, join.measurementSalt());
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
                .kms(new JoinServiceConfig.Kms(kms.socket(), defaults.kms().deadline()))
                .apiServerEndpoint(join.apiServerEndpoint())
                .measurementSaltFile(salt)
                .measurements(new JoinServiceConfig.Measurements(measurements, publicKey, defaults.measurements().pollInterval()))
                .ekCaFile(ekCa)
                .ca(new JoinServiceConfig.Ca(ca.certificate(), ca.key()))
                .controlPlaneDir(Files.createDirectories(dir.resolve("pki")))
                // The join service claims these for the init node before it serves, so no other AK can.
                .initNode(join.initNode())
                .atls(new JoinServiceConfig.Atls(true, tpm, defaults.atls().serverEventLog()))
                // The cluster store: this node's etcd member on loopback, which its member certificate names.
                .etcd(new JoinServiceConfig.Etcd(List.of("https://" + etcd.clientEndpoint()), etcdClient.caFile(),
                        etcdClient.certFile(), etcdClient.keyFile(), defaults.etcd().deadline()))
                .controlPlanes(join.controlPlanes())
                // The KMS's own files: with them the join service admits control planes, handing them the master secret.
                .masterSecret(Optional.of(new JoinServiceConfig.MasterSecret(kms.masterSecretFile(), kms.saltFile())))
                .build();
    }

    /**
     * A started unit is not a serving one (a JVM that dies at start-up still "started"): wait for
     * the KMS's socket and the ports, and when one stays closed say what systemd knows about the units.
     */
    private void awaitListening(List<String> units, Path kmsSocket, List<Integer> ports)
            throws ClusterServicesException, InterruptedException {
        long deadline = System.nanoTime() + settings.readyTimeout().toNanos();
        await(units, deadline, "the KMS socket " + kmsSocket, () -> listening(kmsSocket));
        for (int port : ports) {
            await(units, deadline, "port " + port, () -> listening(port));
        }
    }

    private void await(List<String> units, long deadline, String what, BooleanSupplier listening)
            throws ClusterServicesException, InterruptedException {
        while (!listening.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new ClusterServicesException("nothing listens on " + what + " " + settings.readyTimeout().toSeconds()
                        + " s after starting " + String.join(" ", units) + "; systemctl status:\n" + systemctl.status(units));
            }
            Thread.sleep(500);
        }
    }

    /** The kernel accepts a connection on the socket: the KMS has bound it and listens (who it then answers is its own check). */
    private static boolean listening(Path socket) {
        try (SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            channel.connect(UnixDomainSocketAddress.of(socket));
            return true;
        } catch (IOException e) {
            return false;
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
}
