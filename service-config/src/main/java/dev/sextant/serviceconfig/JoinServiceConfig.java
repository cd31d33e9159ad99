package dev.sextant.serviceconfig;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeMap;

/**
 * Everything the join service is configured with, and the one place that knows its property names
 * and defaults. The bootstrapper renders it to {@code join.properties} (node-local mode), the
 * cluster services render it into the join-config ConfigMap (Kubernetes mode), and the join service
 * binds it back from its environment, so a writer and the reader cannot drift apart.
 *
 * @param ports               gRPC and management ports (absent: the service's defaults)
 * @param recordsDir          where bindings are kept when Kubernetes is absent
 * @param kms                 the KMS the join service asks for disk keys
 * @param atls                attested TLS, and the TPM the service attests itself with
 * @param kubernetes          the cluster the tickets are for
 * @param apiServerEndpoint   host:port a joining node reaches the API server at (empty: not configured)
 * @param kubernetesVersion   version joining nodes install (empty: unspecified)
 * @param measurementSaltFile the salt {@code sextant init} derived the cluster ID with
 * @param tokenTtl            lifetime of a bootstrap token
 * @param memberCertificateValidity lifetime of a member's discovery certificate; the node keeps it on its
 *                            encrypted disk and uses it on every later boot, so it spans the node's life
 * @param ca                  the cluster CA nodes pin (and, for kubeadm, sign kubelet certificates with)
 * @param controlPlaneDir     files a joining control plane receives
 * @param measurements        the signed measurements joining nodes are checked against
 * @param ekCaFile            the CA bundle a joining node's AK must chain to; empty only with
 *                            {@code insecureTrustAnyAk}
 * @param insecureTrustAnyAk  development only: accept any AK (the verifier warns on every use)
 * @param initNode            what the init node owns, bound to its AK before the service serves
 */
public record JoinServiceConfig(
        ServerPorts ports,
        Path recordsDir,
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
        Optional<InitNode> initNode) {

    public static final String PREFIX = "sextant.join.";
    public static final String RECORDS_DIR = PREFIX + "records-dir";
    public static final String KMS_ENDPOINT = PREFIX + "kms.endpoint";
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

    /**
     * The service's own property names, for a binder that looks names up one by one. The ports are
     * not among them: Micronaut binds its servers itself (and a test's random port is -1).
     */
    public static final List<String> KEYS = List.of(
            RECORDS_DIR, KMS_ENDPOINT, KMS_DEADLINE, ATLS_ENABLED, ATLS_SERVER_TPM, ATLS_SERVER_EVENT_LOG,
            KUBERNETES_ENABLED, KUBERNETES_DISTRIBUTION, KUBERNETES_BASE_PATH, KUBERNETES_NAMESPACE, KUBERNETES_TIMEOUT,
            API_SERVER_ENDPOINT, KUBERNETES_VERSION, MEASUREMENT_SALT_FILE, TOKEN_TTL, MEMBER_CERTIFICATE_VALIDITY, CA_CERT_FILE, CA_KEY_FILE,
            CONTROL_PLANE_DIR, MEASUREMENTS_FILE, MEASUREMENTS_PUBLIC_KEY_FILE, MEASUREMENTS_POLL_INTERVAL,
            EK_CA_FILE, INSECURE_TRUST_ANY_AK, INIT_NODE_AK_NAME, INIT_NODE_NODE_NAME, INIT_NODE_DISK_UUIDS);

    // The defaults are the paths of the Kubernetes pod (join-service-daemonset.yaml mounts them there).
    static final String DEFAULT_RECORDS_DIR = "/var/lib/sextant/join-records";
    static final String DEFAULT_KMS_ENDPOINT = "127.0.0.1:9000";
    static final Duration DEFAULT_KMS_DEADLINE = Duration.ofSeconds(5);
    static final String DEFAULT_SERVER_EVENT_LOG = "/sys/kernel/security/tpm0/binary_bios_measurements";
    static final String DEFAULT_NAMESPACE = "kube-system";
    static final Duration DEFAULT_KUBERNETES_TIMEOUT = Duration.ofSeconds(5);
    static final String DEFAULT_MEASUREMENT_SALT_FILE = "/var/config/measurementSalt";
    static final Duration DEFAULT_TOKEN_TTL = Duration.ofMinutes(15);
    public static final Duration DEFAULT_MEMBER_CERTIFICATE_VALIDITY = Duration.ofDays(3650);
    static final String DEFAULT_CA_CERT_FILE = "/var/run/secrets/kubernetes.io/serviceaccount/ca.crt";
    static final String DEFAULT_CA_KEY_FILE = "/etc/kubernetes/pki/ca.key";
    static final String DEFAULT_CONTROL_PLANE_DIR = "/etc/kubernetes/pki";
    static final String DEFAULT_MEASUREMENTS_FILE = "/var/config/measurements/measurements.json";
    static final String DEFAULT_MEASUREMENTS_PUBLIC_KEY_FILE = "/var/config/measurements-key/measurements.pub";
    static final Duration DEFAULT_POLL_INTERVAL = Duration.ofSeconds(30);
    static final String DEFAULT_EK_CA_FILE = "/var/config/ek-ca/ek-ca.pem";

    public JoinServiceConfig {
        Objects.requireNonNull(ports, "ports");
        Objects.requireNonNull(recordsDir, "recordsDir");
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
        if (ekCaFile.isEmpty() && !insecureTrustAnyAk) {
            throw new ConfigException("set " + EK_CA_FILE + " (or, for development only, " + INSECURE_TRUST_ANY_AK + "=true)");
        }
    }

    /** The KMS the join service derives disk keys with (it answers loopback only). */
    public record Kms(String endpoint, Duration deadline) {
        public Kms {
            if (Objects.requireNonNull(endpoint, "endpoint").isBlank()) {
                throw new ConfigException(KMS_ENDPOINT + " is empty (host:port of the KMS)");
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
     * @param enabled      false: a control plane without Kubernetes (bindings in {@code recordsDir},
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

    /**
     * @param akNameHex hex of the init node's TPM AK name
     * @param nodeName  its node name
     * @param diskUuids its state disk's UUID first, then its data volumes'
     */
    public record InitNode(String akNameHex, String nodeName, List<String> diskUuids) {
        public InitNode {
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
        Map<String, String> map = new TreeMap<>();
        properties.stringPropertyNames().forEach(k -> map.put(k, properties.getProperty(k)));
        return from(map);
    }

    /**
     * Parses flat properties (unknown names are ignored: the map may hold a whole environment).
     * A blank value counts as unset and takes the default.
     *
     * @throws ConfigException naming the property that is malformed
     */
    public static JoinServiceConfig from(Map<String, String> properties) {
        PropertyReader r = new PropertyReader(properties);
        boolean insecureAnyAk = r.bool(INSECURE_TRUST_ANY_AK, false);
        // The EK CA default applies unless the development mode is chosen and no bundle is named.
        Optional<Path> ekCa = r.path(EK_CA_FILE).or(() -> insecureAnyAk ? Optional.empty() : Optional.of(Path.of(DEFAULT_EK_CA_FILE)));
        return new JoinServiceConfig(
                ServerPorts.from(r),
                r.path(RECORDS_DIR, DEFAULT_RECORDS_DIR),
                new Kms(r.text(KMS_ENDPOINT, DEFAULT_KMS_ENDPOINT), r.duration(KMS_DEADLINE, DEFAULT_KMS_DEADLINE)),
                new Atls(r.bool(ATLS_ENABLED, true), r.text(ATLS_SERVER_TPM), r.path(ATLS_SERVER_EVENT_LOG, DEFAULT_SERVER_EVENT_LOG)),
                new Kubernetes(r.bool(KUBERNETES_ENABLED, true),
                        Distribution.parse(r.text(KUBERNETES_DISTRIBUTION, "k3s")),
                        r.text(KUBERNETES_BASE_PATH), r.text(KUBERNETES_NAMESPACE, DEFAULT_NAMESPACE),
                        r.duration(KUBERNETES_TIMEOUT, DEFAULT_KUBERNETES_TIMEOUT)),
                r.text(API_SERVER_ENDPOINT, ""),
                r.text(KUBERNETES_VERSION, ""),
                r.path(MEASUREMENT_SALT_FILE, DEFAULT_MEASUREMENT_SALT_FILE),
                r.duration(TOKEN_TTL, DEFAULT_TOKEN_TTL),
                r.duration(MEMBER_CERTIFICATE_VALIDITY, DEFAULT_MEMBER_CERTIFICATE_VALIDITY),
                new Ca(r.path(CA_CERT_FILE, DEFAULT_CA_CERT_FILE), r.path(CA_KEY_FILE, DEFAULT_CA_KEY_FILE)),
                r.path(CONTROL_PLANE_DIR, DEFAULT_CONTROL_PLANE_DIR),
                new Measurements(r.path(MEASUREMENTS_FILE, DEFAULT_MEASUREMENTS_FILE),
                        r.path(MEASUREMENTS_PUBLIC_KEY_FILE, DEFAULT_MEASUREMENTS_PUBLIC_KEY_FILE),
                        r.duration(MEASUREMENTS_POLL_INTERVAL, DEFAULT_POLL_INTERVAL)),
                ekCa,
                insecureAnyAk,
                initNode(r));
    }

    private static Optional<InitNode> initNode(PropertyReader r) {
        Optional<String> ak = r.text(INIT_NODE_AK_NAME);
        Optional<String> name = r.text(INIT_NODE_NODE_NAME);
        Optional<String> disks = r.text(INIT_NODE_DISK_UUIDS);
        if (ak.isEmpty() && name.isEmpty() && disks.isEmpty()) {
            return Optional.empty();
        }
        if (ak.isEmpty() || name.isEmpty() || disks.isEmpty()) {
            throw new ConfigException(INIT_NODE_AK_NAME + ", " + INIT_NODE_NODE_NAME + " and " + INIT_NODE_DISK_UUIDS
                    + " must be set together");
        }
        List<String> uuids = Arrays.stream(disks.get().split(",")).map(String::strip).filter(s -> !s.isEmpty()).toList();
        return Optional.of(new InitNode(ak.get(), name.get(), uuids));
    }

    /**
     * Every setting as flat properties, defaults included, so the file a service reads states all
     * of its configuration. {@code from(toProperties())} equals this record.
     */
    public Map<String, String> toProperties() {
        Map<String, String> p = new TreeMap<>();
        ports.putInto(p);
        p.put(RECORDS_DIR, recordsDir.toString());
        p.put(KMS_ENDPOINT, kms.endpoint());
        p.put(KMS_DEADLINE, PropertyReader.render(kms.deadline()));
        p.put(ATLS_ENABLED, Boolean.toString(atls.enabled()));
        atls.serverTpm().ifPresent(v -> p.put(ATLS_SERVER_TPM, v));
        p.put(ATLS_SERVER_EVENT_LOG, atls.serverEventLog().toString());
        p.put(KUBERNETES_ENABLED, Boolean.toString(kubernetes.enabled()));
        p.put(KUBERNETES_DISTRIBUTION, kubernetes.distribution().value());
        kubernetes.basePath().ifPresent(v -> p.put(KUBERNETES_BASE_PATH, v));
        p.put(KUBERNETES_NAMESPACE, kubernetes.namespace());
        p.put(KUBERNETES_TIMEOUT, PropertyReader.render(kubernetes.timeout()));
        if (!apiServerEndpoint.isEmpty()) {
            p.put(API_SERVER_ENDPOINT, apiServerEndpoint);
        }
        if (!kubernetesVersion.isEmpty()) {
            p.put(KUBERNETES_VERSION, kubernetesVersion);
        }
        p.put(MEASUREMENT_SALT_FILE, measurementSaltFile.toString());
        p.put(TOKEN_TTL, PropertyReader.render(tokenTtl));
        p.put(MEMBER_CERTIFICATE_VALIDITY, PropertyReader.render(memberCertificateValidity));
        p.put(CA_CERT_FILE, ca.certFile().toString());
        p.put(CA_KEY_FILE, ca.keyFile().toString());
        p.put(CONTROL_PLANE_DIR, controlPlaneDir.toString());
        p.put(MEASUREMENTS_FILE, measurements.file().toString());
        p.put(MEASUREMENTS_PUBLIC_KEY_FILE, measurements.publicKeyFile().toString());
        p.put(MEASUREMENTS_POLL_INTERVAL, PropertyReader.render(measurements.pollInterval()));
        ekCaFile.ifPresent(v -> p.put(EK_CA_FILE, v.toString()));
        p.put(INSECURE_TRUST_ANY_AK, Boolean.toString(insecureTrustAnyAk));
        initNode.ifPresent(n -> {
            p.put(INIT_NODE_AK_NAME, n.akNameHex());
            p.put(INIT_NODE_NODE_NAME, n.nodeName());
            p.put(INIT_NODE_DISK_UUIDS, String.join(",", n.diskUuids()));
        });
        return p;
    }

    /** {@link #toProperties()} in the {@code .properties} format, as written to disk or a ConfigMap. */
    public String toPropertiesText(String comment) {
        StringBuilder s = new StringBuilder();
        s.append("# ").append(comment).append('\n');
        toProperties().forEach((k, v) -> s.append(k).append('=').append(escape(v)).append('\n'));
        return s.toString();
    }

    // java.util.Properties#store would add a timestamp line, which breaks repeatable rendering.
    static String escape(String value) {
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            switch (c) {
                case '\\' -> s.append("\\\\");
                case '\n' -> s.append("\\n");
                case '\r' -> s.append("\\r");
                case '\t' -> s.append("\\t");
                case '=', ':', '#', '!' -> s.append('\\').append(c);
                default -> {
                    if (c == ' ' && i == 0) {
                        s.append("\\ ");
                    } else if (c < 0x20 || c > 0x7e) {
                        s.append(String.format("\\u%04x", (int) c));
                    } else {
                        s.append(c);
                    }
                }
            }
        }
        return s.toString();
    }

    public JoinServiceConfig withPorts(ServerPorts value) { return new JoinServiceConfig(value, recordsDir, kms, atls, kubernetes, apiServerEndpoint, kubernetesVersion, measurementSaltFile, tokenTtl, memberCertificateValidity, ca, controlPlaneDir, measurements, ekCaFile, insecureTrustAnyAk, initNode); }
    public JoinServiceConfig withRecordsDir(Path value) { return new JoinServiceConfig(ports, value, kms, atls, kubernetes, apiServerEndpoint, kubernetesVersion, measurementSaltFile, tokenTtl, memberCertificateValidity, ca, controlPlaneDir, measurements, ekCaFile, insecureTrustAnyAk, initNode); }
    public JoinServiceConfig withKms(Kms value) { return new JoinServiceConfig(ports, recordsDir, value, atls, kubernetes, apiServerEndpoint, kubernetesVersion, measurementSaltFile, tokenTtl, memberCertificateValidity, ca, controlPlaneDir, measurements, ekCaFile, insecureTrustAnyAk, initNode); }
    public JoinServiceConfig withAtls(Atls value) { return new JoinServiceConfig(ports, recordsDir, kms, value, kubernetes, apiServerEndpoint, kubernetesVersion, measurementSaltFile, tokenTtl, memberCertificateValidity, ca, controlPlaneDir, measurements, ekCaFile, insecureTrustAnyAk, initNode); }
    public JoinServiceConfig withKubernetes(Kubernetes value) { return new JoinServiceConfig(ports, recordsDir, kms, atls, value, apiServerEndpoint, kubernetesVersion, measurementSaltFile, tokenTtl, memberCertificateValidity, ca, controlPlaneDir, measurements, ekCaFile, insecureTrustAnyAk, initNode); }
    public JoinServiceConfig withApiServerEndpoint(String value) { return new JoinServiceConfig(ports, recordsDir, kms, atls, kubernetes, value, kubernetesVersion, measurementSaltFile, tokenTtl, memberCertificateValidity, ca, controlPlaneDir, measurements, ekCaFile, insecureTrustAnyAk, initNode); }
    public JoinServiceConfig withMeasurementSaltFile(Path value) { return new JoinServiceConfig(ports, recordsDir, kms, atls, kubernetes, apiServerEndpoint, kubernetesVersion, value, tokenTtl, memberCertificateValidity, ca, controlPlaneDir, measurements, ekCaFile, insecureTrustAnyAk, initNode); }
    public JoinServiceConfig withCa(Ca value) { return new JoinServiceConfig(ports, recordsDir, kms, atls, kubernetes, apiServerEndpoint, kubernetesVersion, measurementSaltFile, tokenTtl, memberCertificateValidity, value, controlPlaneDir, measurements, ekCaFile, insecureTrustAnyAk, initNode); }
    public JoinServiceConfig withControlPlaneDir(Path value) { return new JoinServiceConfig(ports, recordsDir, kms, atls, kubernetes, apiServerEndpoint, kubernetesVersion, measurementSaltFile, tokenTtl, memberCertificateValidity, ca, value, measurements, ekCaFile, insecureTrustAnyAk, initNode); }
    public JoinServiceConfig withMeasurements(Measurements value) { return new JoinServiceConfig(ports, recordsDir, kms, atls, kubernetes, apiServerEndpoint, kubernetesVersion, measurementSaltFile, tokenTtl, memberCertificateValidity, ca, controlPlaneDir, value, ekCaFile, insecureTrustAnyAk, initNode); }
    public JoinServiceConfig withEkCaFile(Path value) { return new JoinServiceConfig(ports, recordsDir, kms, atls, kubernetes, apiServerEndpoint, kubernetesVersion, measurementSaltFile, tokenTtl, memberCertificateValidity, ca, controlPlaneDir, measurements, Optional.of(value), insecureTrustAnyAk, initNode); }
    public JoinServiceConfig withInitNode(Optional<InitNode> value) { return new JoinServiceConfig(ports, recordsDir, kms, atls, kubernetes, apiServerEndpoint, kubernetesVersion, measurementSaltFile, tokenTtl, memberCertificateValidity, ca, controlPlaneDir, measurements, ekCaFile, insecureTrustAnyAk, value); }
}
