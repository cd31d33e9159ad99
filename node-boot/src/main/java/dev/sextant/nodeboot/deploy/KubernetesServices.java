package dev.sextant.nodeboot.deploy;

import dev.sextant.clusterservices.ClusterServices;
import dev.sextant.clusterservices.ClusterServicesApplier;
import dev.sextant.clusterservices.EtcdClientCredential;
import dev.sextant.clusterservices.ServicesConfig;
import dev.sextant.diskcrypt.CommandRunner;
import dev.sextant.diskcrypt.SecretFiles;
import dev.sextant.etcd.pki.EtcdTlsFiles;
import dev.sextant.nodeboot.kubernetes.ExternalEtcd;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.util.ClientBuilder;
import io.kubernetes.client.util.KubeConfig;
import jakarta.inject.Singleton;
import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Optional;

/**
 * The cluster services on a control plane where Kubernetes runs. Before Kubernetes starts, this node's
 * member of the cluster's etcd ({@link #startEtcd}, the same {@link ControlPlaneEtcd} and unit as without
 * Kubernetes): Kubernetes keeps its state there, with a client certificate of the etcd CA. Once Kubernetes
 * runs, the KMS and the join service as a DaemonSet ({@link #deploy}), applied through the Kubernetes API
 * with the admin kubeconfig Kubernetes just produced (the manifests and their rendering are the
 * cluster-services module's; `sextant upgrade apply` changes them later); the join service's etcd client
 * certificate goes to its pod as a Secret.
 */
@Singleton
public final class KubernetesServices implements Deployer {
    private final KubernetesServicesSettings settings;
    private final NodeLocalSettings node;
    private final ControlPlaneEtcd etcd;
    private final EtcdUnit etcdUnit;

    public KubernetesServices(KubernetesServicesSettings settings, NodeLocalSettings node, CommandRunner runner, EtcdProbe probe) {
        this.settings = settings;
        this.node = node;
        this.etcd = new ControlPlaneEtcd(node);
        this.etcdUnit = new EtcdUnit(etcd, new Systemctl(runner), probe, node.readyTimeout());
    }

    /**
     * Init: this node's member, the first of a new etcd, serving before Kubernetes starts. The master secret
     * is kept on the encrypted state disk (as the KMS's files are without Kubernetes), so every later start
     * issues the certificates afresh ({@link #restartEtcd}).
     */
    public KubernetesDatastore startEtcd(ServicesInput input) throws ClusterServicesException, InterruptedException {
        try {
            Path kms = Files.createDirectories(node.dir().resolve("kms"));
            SecretFiles.write(kms.resolve("mastersecret"), input.masterSecret());
            SecretFiles.write(kms.resolve("salt"), input.masterSalt());
            return start(etcd.create(input.nodeName()), input.masterSecret(), input.masterSalt());
        } catch (IOException e) {
            throw new ClusterServicesException("writing etcd's member and the master secret under " + node.dir() + ": "
                    + e.getMessage(), e);
        }
    }

    /**
     * After a reboot, before Kubernetes starts again over its datastore: the member on its data, with
     * certificates issued afresh. Empty on a control plane initialized before Kubernetes kept its state in
     * the cluster's etcd (it has no member; k3s finds its own datastore).
     */
    public Optional<KubernetesDatastore> restartEtcd() throws ClusterServicesException, InterruptedException {
        byte[] secret = new byte[0];
        try {
            Optional<EtcdMemberIdentity> identity = etcd.identity();
            if (identity.isEmpty()) {
                return Optional.empty();
            }
            secret = Files.readAllBytes(node.dir().resolve("kms/mastersecret"));
            byte[] salt = Files.readAllBytes(node.dir().resolve("kms/salt"));
            return Optional.of(start(identity.get(), secret, salt));
        } catch (IOException e) {
            throw new ClusterServicesException("reading etcd's member and the master secret under " + node.dir() + ": "
                    + e.getMessage(), e);
        } finally {
            Arrays.fill(secret, (byte) 0);
        }
    }

    private KubernetesDatastore start(EtcdMemberIdentity identity, byte[] masterSecret, byte[] masterSalt)
            throws ClusterServicesException, InterruptedException {
        EtcdTlsFiles joinClient = etcd.prepare(identity, masterSecret, masterSalt);
        EtcdTlsFiles kubernetes = etcd.issueClient(ControlPlaneEtcd.KUBERNETES_CLIENT, masterSecret, masterSalt);
        EtcdStanding standing = etcdUnit.start(joinClient);
        // Loopback, which the member's certificate names: k3s runs on this node, outside any pod.
        return new KubernetesDatastore(new ExternalEtcd("https://" + etcd.clientEndpoint(), kubernetes.caFile(),
                kubernetes.certFile(), kubernetes.keyFile()), standing);
    }

    /** Once Kubernetes runs: the DaemonSet and what it mounts, the join service's etcd client certificate among them. */
    @Override
    public DeployedServices deploy(ServicesInput input) throws ClusterServicesException, InterruptedException {
        EtcdTlsFiles joinClient = etcd.joinClientFiles();
        // The certificate the pod gets is one the member accepts now; the answer is also the status line's.
        EtcdStanding standing = etcdUnit.answering(joinClient);
        ServicesConfig config;
        try {
            config = new ServicesConfig(settings.joinImage(), settings.kmsImage(), input.joinMeasurements().getJson().toByteArray(),
                    input.joinMeasurements().getSignature().toByteArray(), input.joinMeasurements().getPublicKeyPem(),
                    input.ekCaPem(), input.masterSecret(), input.masterSalt(), input.measurementSalt(),
                    input.apiServerEndpoint(), settings.joinNodePort(), input.initNode(), credential(joinClient));
        } catch (IllegalArgumentException e) {
            throw new ClusterServicesException("the init request cannot configure the cluster services: " + e.getMessage(), e);
        }
        try {
            ApiClient client = ClientBuilder.kubeconfig(KubeConfig.loadKubeConfig(
                    new StringReader(new String(input.kubeconfig(), StandardCharsets.UTF_8)))).build();
            ClusterServicesApplier.ApplyResult result = ClusterServicesApplier.apply(client, ClusterServices.render(config));
            return new DeployedServices("KMS and join service applied through the Kubernetes API ("
                    + result.count(ClusterServicesApplier.Action.CREATED) + " objects created, "
                    + result.count(ClusterServicesApplier.Action.UPDATED) + " updated); join service on NodePort "
                    + settings.joinNodePort() + ", its bindings in etcd on this node", standing);
        } catch (ApiException e) {
            throw new ClusterServicesException("applying the cluster services: API server answered " + e.getCode() + " "
                    + e.getResponseBody(), e);
        } catch (IOException | RuntimeException e) {
            throw new ClusterServicesException("applying the cluster services: " + e.getMessage(), e);
        }
    }

    private EtcdClientCredential credential(EtcdTlsFiles files) throws ClusterServicesException {
        try {
            return new EtcdClientCredential(node.etcdClientPort(), Files.readString(files.caFile(), StandardCharsets.US_ASCII),
                    Files.readString(files.certFile(), StandardCharsets.US_ASCII), Files.readAllBytes(files.keyFile()));
        } catch (IOException e) {
            throw new ClusterServicesException("reading the join service's etcd client certificate: " + e.getMessage(), e);
        }
    }
}
