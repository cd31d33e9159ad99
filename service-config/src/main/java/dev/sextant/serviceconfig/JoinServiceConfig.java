package dev.sextant.serviceconfig;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;

/**
 * Everything the join service is configured with, as typed settings, and the names of its
 * properties. The bootstrapper renders it to {@code join.properties} (node-local mode), the cluster
 * services render it into the join-config ConfigMap (Kubernetes mode), and the join service binds it
 * back from its environment, all through one codec ({@link JoinServiceProperties}, which holds the
 * defaults), so a writer and the reader cannot drift apart.
 *
 * @param ports               gRPC and management ports (absent: the service's defaults)
 * @param etcd                the cluster store: bindings and everything the service must not forget
 * @param kms                 the KMS the join service asks for disk keys
 * @param atls                attested TLS, and the TPM the service attests itself with
 * @param kubernetes          the cluster the tickets are for
 * @param apiServerEndpoint   host:port a joining node reaches the API server at (empty: not configured)
 * @param kubernetesVersion   version joining nodes install (empty: unspecified)
 * @param measurementSaltFile the salt {@code sextant init} derived the cluster ID with
 * @param tokenTtl            lifetime of a bootstrap token
 * @param memberCertificateValidity lifetime of a member's discovery certificate (default an hour): the
 *                            re-attestation holder renews it after each successful round, so a member that
 *                            is not re-attested loses its identity by itself (docs/re-attestation.md)
 * @param ca                  the cluster CA nodes pin (and, for kubeadm, sign kubelet certificates with)
 * @param controlPlaneDir     files a joining control plane receives
 * @param measurements        the signed measurements joining nodes are checked against
 * @param ekCaFile            the CA bundle a joining node's AK must chain to; empty only with
 *                            {@code insecureTrustAnyAk}
 * @param insecureTrustAnyAk  development only: accept any AK (the verifier warns on every use)
 * @param initNode            what the init node owns, bound to its AK before the service serves
 * @param controlPlanes       the most control planes the cluster admits ({@code sextant init --control-planes});
 *                            the init node writes it to etcd, where every join service reads it
 * @param masterSecret        the KMS's master secret files, which a control plane's join service hands to a
 *                            joining control plane (its ticket's {@code ControlPlaneJoin}); absent: this
 *                            service admits no control plane
 */
public record JoinServiceConfig(
        ServerPorts ports,
        Etcd etcd,
        Kms kms,
        Atls atls,
        Kubernetes kubernetes,
        String apiServerEndpoint,
        String kubernetesVersion,
        Path measurementSaltFile,
        Duration tokenTtl,
        Duration memberCertificateValidity,
        Ca ca,
        Path controlPlaneDir,
        Measurements measurements,
        Optional<Path> ekCaFile,
        boolean insecureTrustAnyAk,
        Optional<InitNode> initNode,
        int controlPlanes,
        Optional<MasterSecret> masterSecret) {

    public static final String PREFIX = "sextant.join.";
    public static final String ETCD_ENDPOINTS = PREFIX + "etcd.endpoints";
    public static final String ETCD_CA_FILE = PREFIX + "etcd.ca-file";
    public static final String ETCD_CERT_FILE = PREFIX + "etcd.cert-file";
    public static final String ETCD_KEY_FILE = PREFIX + "etcd.key-file";
    public static final String ETCD_DEADLINE = PREFIX + "etcd.deadline";
    public static final String KMS_SOCKET = PREFIX + "kms.socket";
    public static final String KMS_DEADLINE = PREFIX + "kms.deadline";
    public static final String ATLS_ENABLED = PREFIX + "atls.enabled";
    public static final String ATLS_SERVER_TPM = PREFIX + "atls.server-tpm";
    public static final String ATLS_SERVER_EVENT_LOG = PREFIX + "atls.server-event-log";
    public static final String KUBERNETES_ENABLED = PREFIX + "kubernetes.enabled";
    public static final String KUBERNETES_DISTRIBUTION = PREFIX + "kubernetes.distribution";
    public static final String KUBERNETES_BASE_PATH = PREFIX + "kubernetes.base-path";
    public static final String KUBERNETES_NAMESPACE = PREFIX + "kubernetes.namespace";
    public static final String KUBERNETES_TIMEOUT = PREFIX + "kubernetes.timeout";
    public static final String API_SERVER_ENDPOINT = PREFIX + "api-server-endpoint";
    public static final String KUBERNETES_VERSION = PREFIX + "kubernetes-version";
    public static final String MEASUREMENT_SALT_FILE = PREFIX + "measurement-salt-file";
    public static final String TOKEN_TTL = PREFIX + "token-ttl";
    public static final String MEMBER_CERTIFICATE_VALIDITY = PREFIX + "member-certificate-validity";
    public static final String CA_CERT_FILE = PREFIX + "ca.cert-file";
    public static final String CA_KEY_FILE = PREFIX + "ca.key-file";
    public static final String CONTROL_PLANE_DIR = PREFIX + "control-plane-dir";
    public static final String MEASUREMENTS_FILE = PREFIX + "measurements.file";
    public static final String MEASUREMENTS_PUBLIC_KEY_FILE = PREFIX + "measurements.public-key-file";
    public static final String MEASUREMENTS_POLL_INTERVAL = PREFIX + "measurements.poll-interval";
    public static final String EK_CA_FILE = PREFIX + "ek-ca-file";
    public static final String INSECURE_TRUST_ANY_AK = PREFIX + "insecure-trust-any-ak";
    public static final String INIT_NODE_AK_NAME = PREFIX + "init-node.ak-name";
    public static final String INIT_NODE_NODE_NAME = PREFIX + "init-node.node-name";
    public static final String INIT_NODE_DISK_UUIDS = PREFIX + "init-node.disk-uuids";
    public static final String INIT_NODE_VERIFY_ENDPOINT = PREFIX + "init-node.verify-endpoint";
    public static final String CONTROL_PLANES = PREFIX + "control-planes";
    public static final String MASTER_SECRET_FILE = PREFIX + "master-secret.file";
    public static final String MASTER_SECRET_SALT_FILE = PREFIX + "master-secret.salt-file";
    /** Every control plane is an etcd voter; etcd advises against more than seven. */
    public static final int MAX_CONTROL_PLANES = 7;

    /**
     * The service's own property names, for a binder that looks names up one by one. The ports are
     * not among them: Micronaut binds its servers itself (and a test's random port is -1).
     */
    public static final List<String> KEYS = List.of(
            ETCD_ENDPOINTS, ETCD_CA_FILE, ETCD_CERT_FILE, ETCD_KEY_FILE, ETCD_DEADLINE, KMS_SOCKET, KMS_DEADLINE, ATLS_ENABLED, ATLS_SERVER_TPM, ATLS_SERVER_EVENT_LOG,
            KUBERNETES_ENABLED, KUBERNETES_DISTRIBUTION, KUBERNETES_BASE_PATH, KUBERNETES_NAMESPACE, KUBERNETES_TIMEOUT,
            API_SERVER_ENDPOINT, KUBERNETES_VERSION, MEASUREMENT_SALT_FILE, TOKEN_TTL, MEMBER_CERTIFICATE_VALIDITY, CA_CERT_FILE, CA_KEY_FILE,
            CONTROL_PLANE_DIR, MEASUREMENTS_FILE, MEASUREMENTS_PUBLIC_KEY_FILE, MEASUREMENTS_POLL_INTERVAL,
            EK_CA_FILE, INSECURE_TRUST_ANY_AK, INIT_NODE_AK_NAME, INIT_NODE_NODE_NAME, INIT_NODE_DISK_UUIDS, INIT_NODE_VERIFY_ENDPOINT, CONTROL_PLANES,
            MASTER_SECRET_FILE, MASTER_SECRET_SALT_FILE);

    public JoinServiceConfig {
        Objects.requireNonNull(ports, "ports");
        Objects.requireNonNull(etcd, "etcd");
        Objects.requireNonNull(kms, "kms");
        Objects.requireNonNull(atls, "atls");
        Objects.requireNonNull(kubernetes, "kubernetes");
        Objects.requireNonNull(apiServerEndpoint, "apiServerEndpoint");
        Objects.requireNonNull(kubernetesVersion, "kubernetesVersion");
        Objects.requireNonNull(measurementSaltFile, "measurementSaltFile");
        Objects.requireNonNull(tokenTtl, "tokenTtl");
        if (memberCertificateValidity.isNegative() || memberCertificateValidity.isZero()) {
            throw new ConfigException(MEMBER_CERTIFICATE_VALIDITY + " must be positive");
        }
        Objects.requireNonNull(ca, "ca");
        Objects.requireNonNull(controlPlaneDir, "controlPlaneDir");
        Objects.requireNonNull(measurements, "measurements");
        Objects.requireNonNull(ekCaFile, "ekCaFile");
        Objects.requireNonNull(initNode, "initNode");
        Objects.requireNonNull(masterSecret, "masterSecret");
        if (controlPlanes < 1 || controlPlanes > MAX_CONTROL_PLANES) {
            throw new ConfigException(CONTROL_PLANES + " must be between 1 and " + MAX_CONTROL_PLANES + ", got " + controlPlanes);
        }
        if (ekCaFile.isEmpty() && !insecureTrustAnyAk) {
            throw new ConfigException("set " + EK_CA_FILE + " (or, for development only, " + INSECURE_TRUST_ANY_AK + "=true)");
        }
    }

    /**
     * The cluster's etcd, reached over mutual TLS with a client certificate of the etcd CA (derived
     * from the master secret, so only a control plane can issue one).
     *
     * @param endpoints client URLs ({@code https://HOST:PORT}) of the members the service may ask, in order
     * @param deadline  of every call to etcd
     */
    public record Etcd(List<String> endpoints, Path caFile, Path certFile, Path keyFile, Duration deadline) {
        public Etcd {
            endpoints = List.copyOf(endpoints);
            if (endpoints.isEmpty()) {
                throw new ConfigException(ETCD_ENDPOINTS + " is empty (https://HOST:PORT of etcd members, comma-separated)");
            }
            for (String endpoint : endpoints) {
                if (!endpoint.startsWith("https://")) {
                    throw new ConfigException(ETCD_ENDPOINTS + ": '" + endpoint + "' is not an https:// URL (etcd is reached over mutual TLS only)");
                }
            }
            Objects.requireNonNull(caFile, "caFile");
            Objects.requireNonNull(certFile, "certFile");
            Objects.requireNonNull(keyFile, "keyFile");
            Objects.requireNonNull(deadline, "deadline");
        }
    }

    /**
     * The KMS the join service derives disk keys with: beside it (same pod, or same node), on a Unix socket
     * only the two of them share. The KMS answers only the join service's uid.
     *
     * @param socket   the KMS's Unix socket
     * @param deadline of every call
     */
    public record Kms(Path socket, Duration deadline) {
        public Kms {
            Objects.requireNonNull(socket, "socket");
            if (!socket.isAbsolute()) {
                throw new ConfigException(KMS_SOCKET + " must be an absolute path (the KMS's Unix socket), not '" + socket + "'");
            }
            Objects.requireNonNull(deadline, "deadline");
        }
    }

    /**
     * @param enabled        mutual attested TLS on the gRPC port (off only in tests of the ticket logic)
     * @param serverTpm      the TPM the service quotes with in every handshake ({@code device:/dev/tpmrm0},
     *                       {@code swtpm:HOST:PORT}); absent: the service does not attest itself
     * @param serverEventLog the firmware event log sent with its quotes (absent file: an empty log)
     */
    public record Atls(boolean enabled, Optional<String> serverTpm, Path serverEventLog) {
        public Atls {
            Objects.requireNonNull(serverTpm, "serverTpm");
            Objects.requireNonNull(serverEventLog, "serverEventLog");
        }
    }

    /** What a ticket is for. */
    public enum Distribution {
        /** Server URL, CA hash and token; no CA key needed. */
        K3S,
        /** Bootstrap token, CA hash, a kubelet certificate signed with the CA key, control-plane files. */
        KUBEADM;

        public String value() {
            return name().toLowerCase(Locale.ROOT);
        }

        static Distribution parse(String value) {
            return switch (value) {
                case "k3s" -> K3S;
                case "kubeadm" -> KUBEADM;
                default -> throw new ConfigException(KUBERNETES_DISTRIBUTION + " must be k3s or kubeadm, not '" + value + "'");
            };
        }
    }

    /**
     * @param enabled      false: a control plane without Kubernetes (bindings in etcd as always,
     *                     no bootstrap tokens)
     * @param basePath     the API server's URL; absent: the in-cluster service account
     */
    public record Kubernetes(boolean enabled, Distribution distribution, Optional<String> basePath, String namespace,
                             Duration timeout) {
        public Kubernetes {
            Objects.requireNonNull(distribution, "distribution");
            Objects.requireNonNull(basePath, "basePath");
            Objects.requireNonNull(namespace, "namespace");
            Objects.requireNonNull(timeout, "timeout");
        }
    }

    /** @param keyFile kubeadm only: signs kubelet client certificates */
    public record Ca(Path certFile, Path keyFile) {
        public Ca {
            Objects.requireNonNull(certFile, "certFile");
            Objects.requireNonNull(keyFile, "keyFile");
        }
    }

    /** The signed measurements (re-read when the directory of {@code file} changes). */
    public record Measurements(Path file, Path publicKeyFile, Duration pollInterval) {
        public Measurements {
            Objects.requireNonNull(file, "file");
            Objects.requireNonNull(publicKeyFile, "publicKeyFile");
            Objects.requireNonNull(pollInterval, "pollInterval");
        }
    }

    /** The files the KMS derives every key from (the same files: a control plane's KMS and join service share them). */
    public record MasterSecret(Path file, Path saltFile) {
        public MasterSecret {
            Objects.requireNonNull(file, "file");
            Objects.requireNonNull(saltFile, "saltFile");
        }
    }

    /**
     * @param akNameHex hex of the init node's TPM AK name
     * @param nodeName  its node name
     * @param diskUuids its state disk's UUID first, then its data volumes'
     */
    public record InitNode(String akNameHex, String nodeName, List<String> diskUuids, String verifyEndpoint) {
        /** Without an endpoint: the re-attestation duty asks the init node once its first rejoin reported one. */
        public InitNode(String akNameHex, String nodeName, List<String> diskUuids) {
            this(akNameHex, nodeName, diskUuids, "");
        }

        public InitNode {
            Objects.requireNonNull(verifyEndpoint, "verifyEndpoint (\"\" when unknown)");
            Objects.requireNonNull(akNameHex, "akNameHex");
            Objects.requireNonNull(nodeName, "nodeName");
            diskUuids = List.copyOf(diskUuids);
            if (akNameHex.isEmpty() || akNameHex.length() % 2 != 0 || !akNameHex.chars().allMatch(HexFormat::isHexDigit)) {
                throw new ConfigException(INIT_NODE_AK_NAME + " is not an even-length hex string");
            }
            if (nodeName.isBlank()) {
                throw new ConfigException(INIT_NODE_NODE_NAME + " is empty");
            }
            if (diskUuids.isEmpty()) {
                throw new ConfigException(INIT_NODE_DISK_UUIDS + " is empty (the state disk's UUID comes first)");
            }
        }
    }

    /** The configuration with every default: what a join service in its Kubernetes pod reads. */
    public static JoinServiceConfig defaults() {
        return from(Map.of());
    }

    public static JoinServiceConfig from(Properties properties) {
        return from(PropertyReader.asMap(properties));
    }

    /**
     * Parses flat properties (unknown names are ignored: the map may hold a whole environment).
     * A blank value counts as unset and takes the default.
     *
     * @throws ConfigException naming the property that is malformed
     */
    public static JoinServiceConfig from(Map<String, String> properties) {
        return JoinServiceProperties.read(properties);
    }

    /**
     * Every setting as flat properties, defaults included, so the file a service reads states all
     * of its configuration. {@code from(toProperties())} equals this record.
     */
    public Map<String, String> toProperties() {
        return JoinServiceProperties.write(this);
    }

    /** {@link #toProperties()} in the {@code .properties} format, as written to disk or a ConfigMap. */
    public String toPropertiesText(String comment) {
        return PropertiesText.render(comment, toProperties());
    }

    /** A builder that starts from this configuration, to change some settings by name. */
    public JoinServiceConfigBuilder toBuilder() {
        return new JoinServiceConfigBuilder(this);
    }
}
