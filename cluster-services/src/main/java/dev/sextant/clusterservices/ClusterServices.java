package dev.sextant.clusterservices;

import dev.sextant.serviceconfig.JoinServiceConfig;
import dev.sextant.serviceconfig.KmsConfig;
import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1Container;
import io.kubernetes.client.openapi.models.V1DaemonSet;
import io.kubernetes.client.openapi.models.V1EnvVar;
import io.kubernetes.client.openapi.models.V1Secret;
import io.kubernetes.client.openapi.models.V1Service;
import io.kubernetes.client.openapi.models.V1ServicePort;
import io.kubernetes.client.util.Yaml;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Predicate;

/**
 * Renders the KMS and join service objects: the kustomize base in {@code manifests/base} (plain YAML,
 * which {@code kubectl apply -k} also accepts) loaded into client-java's typed models, with the
 * cluster's values set on the fields. No text templating, so a value can never change the YAML's
 * structure.
 */
public final class ClusterServices {
    public static final String NAMESPACE = "kube-system";
    public static final String BASE = "manifests/base/";

    public static final String JOIN_DAEMONSET = "sextant-join-service";
    public static final String JOIN_CONTAINER = "join-service";
    public static final String JOIN_SERVICE = "join-service";
    /** The KMS runs in the join service's pod, beside it. */
    public static final String KMS_CONTAINER = "kms";
    public static final String JOIN_CONFIG = "join-config";
    public static final String MEASUREMENTS_KEY = "measurements.json";
    public static final String SIGNATURE_KEY = "measurements.json.sig";
    public static final String MEASUREMENT_SALT_KEY = "measurementSalt";
    /** The join service's whole configuration, {@link JoinServiceConfig} as properties. */
    public static final String JOIN_PROPERTIES_KEY = "join.properties";
    public static final String MEASUREMENTS_PUBLIC_KEY_CONFIGMAP = "sextant-measurements-key";
    public static final String MEASUREMENTS_PUBLIC_KEY_KEY = "measurements.pub";
    static final String EK_CA_CONFIGMAP = "sextant-ek-ca";
    static final String EK_CA_KEY = "ek-ca.pem";
    static final String MASTER_SECRET = "sextant-master-secret";
    public static final String ETCD_CLIENT_SECRET = "sextant-join-etcd-client";
    static final String ETCD_CLIENT_NAME = "join-service";
    /** The variable the join service's etcd endpoint names: the address of the node its pod runs on. */
    static final String NODE_IP_VARIABLE = "SEXTANT_NODE_IP";

    // Where join-service-daemonset.yaml mounts the ConfigMaps, the Secret and the host's TPM.
    static final String JOIN_CONFIG_MOUNT = "/var/config/join/";
    static final String MEASUREMENTS_KEY_MOUNT = "/var/config/measurements-key/";
    static final String EK_CA_MOUNT = "/var/config/ek-ca/";
    static final String MASTER_SECRET_MOUNT = "/var/config/master-secret/";
    static final String ETCD_CLIENT_MOUNT = "/var/config/etcd-client/";
    static final String SERVICE_ACCOUNT_CA = "/var/run/secrets/kubernetes.io/serviceaccount/ca.crt";
    static final String HOST_TPM = "device:/dev/tpmrm0";
    /** The KMS's management port: the join service holds 9091 in the pod's shared network namespace. */
    static final int KMS_MANAGEMENT_PORT = 9092;
    /** The KMS's socket, in the kms-socket emptyDir both containers mount at /run/sextant. */
    public static final String KMS_SOCKET = "/run/sextant/kms/kms.sock";
    /** The pod's uid (its securityContext), the join service's: the one uid the KMS answers. */
    public static final int POD_UID = 10001;

    private ClusterServices() {}

    /** The objects to apply, in the kustomization's order (accounts and config before the workloads). */
    public static List<KubernetesObject> render(ServicesConfig config) {
        List<KubernetesObject> objects = loadBase();

        V1DaemonSet join = find(objects, V1DaemonSet.class, JOIN_DAEMONSET);
        V1Container joinContainer = container(join.getSpec().getTemplate().getSpec().getContainers(), JOIN_CONTAINER);
        joinContainer.setImage(config.joinServiceImage());
        V1Container kmsContainer = container(join.getSpec().getTemplate().getSpec().getContainers(), KMS_CONTAINER);
        kmsContainer.setImage(config.kmsImage());
        KmsConfig kms = kmsConfig();
        env(kmsContainer, "SEXTANT_KMS_MASTER_SECRET_FILE").setValue(kms.masterSecretFile().toString());
        env(kmsContainer, "SEXTANT_KMS_SALT_FILE").setValue(kms.saltFile().toString());
        env(kmsContainer, "SEXTANT_KMS_HTTP_PORT").setValue(Integer.toString(kms.ports().management().orElseThrow()));
        env(kmsContainer, "SEXTANT_KMS_SOCKET").setValue(kms.socket().toString());
        env(kmsContainer, "SEXTANT_KMS_PEER_UIDS").setValue(kms.toProperties().get(KmsConfig.PEER_UIDS));
        Long podUid = join.getSpec().getTemplate().getSpec().getSecurityContext().getRunAsUser();
        if (podUid == null || !kms.peerUids().equals(Set.of(podUid.intValue()))) {
            throw new IllegalStateException("the pod runs as uid " + podUid + ", but the KMS would answer uid " + kms.peerUids()
                    + ": the join service could not reach it");
        }

        V1Service joinService = find(objects, V1Service.class, JOIN_SERVICE);
        port(joinService, "grpc").setNodePort(config.joinNodePort());

        V1ConfigMap joinConfig = find(objects, V1ConfigMap.class, JOIN_CONFIG);
        joinConfig.setData(sorted(Map.of(
                MEASUREMENTS_KEY, utf8(config.measurementsJson(), "the measurements file"),
                SIGNATURE_KEY, utf8(config.measurementsSignature(), "the measurements signature"),
                JOIN_PROPERTIES_KEY, joinServiceConfig(config).toPropertiesText("rendered by ClusterServices from JoinServiceConfig"))));
        joinConfig.setBinaryData(sorted(Map.of(MEASUREMENT_SALT_KEY, config.measurementSalt().clone())));

        find(objects, V1ConfigMap.class, MEASUREMENTS_PUBLIC_KEY_CONFIGMAP)
                .setData(sorted(Map.of(MEASUREMENTS_PUBLIC_KEY_KEY, config.measurementsPublicKeyPem())));
        find(objects, V1ConfigMap.class, EK_CA_CONFIGMAP).setData(sorted(Map.of(EK_CA_KEY, config.ekCaPem())));
        find(objects, V1Secret.class, MASTER_SECRET).setData(sorted(Map.of(
                "mastersecret", config.masterSecret().clone(),
                "salt", config.salt().clone())));
        EtcdClientCredential etcd = config.etcd();
        find(objects, V1Secret.class, ETCD_CLIENT_SECRET).setData(sorted(Map.of(
                "ca.crt", etcd.caPem().getBytes(StandardCharsets.US_ASCII),
                ETCD_CLIENT_NAME + ".crt", etcd.certificatePem().getBytes(StandardCharsets.US_ASCII),
                ETCD_CLIENT_NAME + ".key", etcd.keyPem().clone())));
        return objects;
    }

    /**
     * The join service as its pod runs it: files where the DaemonSet mounts them, k3s (so no CA
     * private key: k3s makes its own kubelet certificates, and the CA nodes pin is the service
     * account's ca.crt), the KMS beside it on their shared socket, the host's TPM to attest itself with, and the etcd
     * member of the node it runs on, at the node's address, which Micronaut resolves from the pod's
     * environment when the service starts.
     */
    public static JoinServiceConfig joinServiceConfig(ServicesConfig config) {
        JoinServiceConfig defaults = JoinServiceConfig.defaults();
        InitNodeBinding init = config.initNode();
        return defaults.toBuilder()
                .apiServerEndpoint(config.apiServerEndpoint())
                .kms(new JoinServiceConfig.Kms(kmsConfig().socket(), defaults.kms().deadline()))
                .kubernetes(new JoinServiceConfig.Kubernetes(true, JoinServiceConfig.Distribution.K3S, Optional.empty(),
                        NAMESPACE, defaults.kubernetes().timeout()))
                .measurements(new JoinServiceConfig.Measurements(Path.of(JOIN_CONFIG_MOUNT + MEASUREMENTS_KEY),
                        Path.of(MEASUREMENTS_KEY_MOUNT + MEASUREMENTS_PUBLIC_KEY_KEY), defaults.measurements().pollInterval()))
                .measurementSaltFile(Path.of(JOIN_CONFIG_MOUNT + MEASUREMENT_SALT_KEY))
                .ekCaFile(Path.of(EK_CA_MOUNT + EK_CA_KEY))
                .ca(new JoinServiceConfig.Ca(Path.of(SERVICE_ACCOUNT_CA), defaults.ca().keyFile()))
                .atls(new JoinServiceConfig.Atls(true, Optional.of(HOST_TPM), defaults.atls().serverEventLog()))
                .initNode(Optional.of(new JoinServiceConfig.InitNode(init.akNameHex(), init.nodeName(), init.diskUuids(), init.verifyEndpoint())))
                .etcd(new JoinServiceConfig.Etcd(List.of("https://${" + NODE_IP_VARIABLE + "}:" + config.etcd().memberPort()),
                        Path.of(ETCD_CLIENT_MOUNT + "ca.crt"), Path.of(ETCD_CLIENT_MOUNT + ETCD_CLIENT_NAME + ".crt"),
                        Path.of(ETCD_CLIENT_MOUNT + ETCD_CLIENT_NAME + ".key"), defaults.etcd().deadline()))
                // The KMS's own files, mounted read-only: with them the join service admits control planes.
                .masterSecret(Optional.of(new JoinServiceConfig.MasterSecret(kmsConfig().masterSecretFile(), kmsConfig().saltFile())))
                .build();
    }

    /** The KMS in the join service's pod: the master secret where the DaemonSet mounts it, the socket, the pod's uid. */
    public static KmsConfig kmsConfig() {
        return KmsConfig.of(KMS_MANAGEMENT_PORT, Path.of(KMS_SOCKET), Set.of(POD_UID),
                Path.of(MASTER_SECRET_MOUNT + "mastersecret"), Path.of(MASTER_SECRET_MOUNT + "salt"));
    }

    /** Map.of iterates in a per-JVM order; rendering must be byte-for-byte repeatable. */
    private static <V> Map<String, V> sorted(Map<String, V> map) {
        return new TreeMap<>(map);
    }

    /** The base objects with their placeholder values, in kustomization order. */
    static List<KubernetesObject> loadBase() {
        List<KubernetesObject> objects = new ArrayList<>();
        for (String file : baseFiles()) {
            try {
                objects.add((KubernetesObject) Yaml.load(resource(file)));
            } catch (IOException | ClassCastException e) {
                throw new IllegalStateException("manifest " + BASE + file + " does not load as a Kubernetes object: "
                        + e.getMessage(), e);
            }
        }
        return objects;
    }

    /** The resources kustomization.yaml lists, which is what {@code kubectl apply -k} would apply. */
    public static List<String> baseFiles() {
        Map<String, Object> kustomization = new org.yaml.snakeyaml.Yaml().load(resource("kustomization.yaml"));
        @SuppressWarnings("unchecked")
        List<String> files = (List<String>) kustomization.get("resources");
        return List.copyOf(files);
    }

    public static String resource(String file) {
        try (InputStream in = ClusterServices.class.getClassLoader().getResourceAsStream(BASE + file)) {
            if (in == null) {
                throw new IllegalStateException("manifest " + BASE + file + " is missing from the classpath");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static <T extends KubernetesObject> T find(List<KubernetesObject> objects, Class<T> type, String name) {
        return objects.stream().filter(type::isInstance).map(type::cast)
                .filter(o -> name.equals(o.getMetadata().getName())).findFirst()
                .orElseThrow(() -> new IllegalStateException("the manifests have no " + type.getSimpleName() + " " + name));
    }

    public static V1Container container(List<V1Container> containers, String name) {
        return only(containers, c -> name.equals(c.getName()), "container " + name);
    }

    private static V1EnvVar env(V1Container container, String name) {
        return only(container.getEnv(), e -> name.equals(e.getName()), "variable " + name + " in container " + container.getName());
    }

    private static V1ServicePort port(V1Service service, String name) {
        return only(service.getSpec().getPorts(), p -> name.equals(p.getName()), "port " + name + " in Service " + service.getMetadata().getName());
    }

    private static <T> T only(List<T> items, Predicate<T> match, String what) {
        return (items == null ? List.<T>of() : items).stream().filter(match).findFirst()
                .orElseThrow(() -> new IllegalStateException("the manifests have no " + what));
    }

    /** ConfigMap data must be text; the measurements and their base64 signature are. */
    private static String utf8(byte[] bytes, String what) {
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            throw new IllegalArgumentException(what + " is not UTF-8 text", e);
        }
    }
}
