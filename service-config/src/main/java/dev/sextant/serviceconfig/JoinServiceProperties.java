package dev.sextant.serviceconfig;

import dev.sextant.serviceconfig.JoinServiceConfig.Atls;
import dev.sextant.serviceconfig.JoinServiceConfig.Ca;
import dev.sextant.serviceconfig.JoinServiceConfig.Distribution;
import dev.sextant.serviceconfig.JoinServiceConfig.Etcd;
import dev.sextant.serviceconfig.JoinServiceConfig.InitNode;
import dev.sextant.serviceconfig.JoinServiceConfig.Kms;
import dev.sextant.serviceconfig.JoinServiceConfig.Kubernetes;
import dev.sextant.serviceconfig.JoinServiceConfig.MasterSecret;
import dev.sextant.serviceconfig.JoinServiceConfig.Measurements;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import static dev.sextant.serviceconfig.JoinServiceConfig.*;

/**
 * The codec between {@link JoinServiceConfig} and its flat properties, and the defaults a property
 * takes when it is unset: {@link #write} renders every setting, {@link #read} binds them back, and
 * {@code read(write(c))} equals {@code c}.
 */
final class JoinServiceProperties {
    // The defaults are the paths of the Kubernetes pod (join-service-daemonset.yaml mounts them there).
    static final String DEFAULT_ETCD_ENDPOINTS = "https://127.0.0.1:2379";
    static final String DEFAULT_ETCD_CA_FILE = "/var/config/etcd/ca.crt";
    static final String DEFAULT_ETCD_CERT_FILE = "/var/config/etcd/client.crt";
    static final String DEFAULT_ETCD_KEY_FILE = "/var/config/etcd/client.key";
    static final Duration DEFAULT_ETCD_DEADLINE = Duration.ofSeconds(5);
    static final String DEFAULT_KMS_SOCKET = KmsConfig.DEFAULT_SOCKET;
    static final Duration DEFAULT_KMS_DEADLINE = Duration.ofSeconds(5);
    static final String DEFAULT_SERVER_EVENT_LOG = "/sys/kernel/security/tpm0/binary_bios_measurements";
    static final String DEFAULT_DISTRIBUTION = "k3s";
    static final String DEFAULT_NAMESPACE = "kube-system";
    static final Duration DEFAULT_KUBERNETES_TIMEOUT = Duration.ofSeconds(5);
    static final String DEFAULT_MEASUREMENT_SALT_FILE = "/var/config/measurementSalt";
    static final Duration DEFAULT_TOKEN_TTL = Duration.ofMinutes(15);
    static final Duration DEFAULT_MEMBER_CERTIFICATE_VALIDITY = Duration.ofHours(1);
    static final String DEFAULT_CA_CERT_FILE = "/var/run/secrets/kubernetes.io/serviceaccount/ca.crt";
    static final String DEFAULT_CA_KEY_FILE = "/etc/kubernetes/pki/ca.key";
    static final String DEFAULT_CONTROL_PLANE_DIR = "/etc/kubernetes/pki";
    static final String DEFAULT_MEASUREMENTS_FILE = "/var/config/measurements/measurements.json";
    static final String DEFAULT_MEASUREMENTS_PUBLIC_KEY_FILE = "/var/config/measurements-key/measurements.pub";
    static final Duration DEFAULT_POLL_INTERVAL = Duration.ofSeconds(30);
    static final String DEFAULT_EK_CA_FILE = "/var/config/ek-ca/ek-ca.pem";
    static final int DEFAULT_CONTROL_PLANES = 3;

    private JoinServiceProperties() {
    }

    /** Binds flat properties; a blank value counts as unset, unknown names are ignored. */
    static JoinServiceConfig read(Map<String, String> properties) {
        PropertyReader r = new PropertyReader(properties);
        boolean insecureAnyAk = r.bool(INSECURE_TRUST_ANY_AK, false);
        // The EK CA default applies unless the development mode is chosen and no bundle is named.
        Optional<Path> ekCa = r.path(EK_CA_FILE).or(() -> insecureAnyAk ? Optional.empty() : Optional.of(Path.of(DEFAULT_EK_CA_FILE)));
        return new JoinServiceConfig(
                ServerPorts.from(r),
                new Etcd(Arrays.stream(r.text(ETCD_ENDPOINTS, DEFAULT_ETCD_ENDPOINTS).split(",")).map(String::strip)
                        .filter(e -> !e.isEmpty()).toList(),
                        r.path(ETCD_CA_FILE, DEFAULT_ETCD_CA_FILE), r.path(ETCD_CERT_FILE, DEFAULT_ETCD_CERT_FILE),
                        r.path(ETCD_KEY_FILE, DEFAULT_ETCD_KEY_FILE), r.duration(ETCD_DEADLINE, DEFAULT_ETCD_DEADLINE)),
                new Kms(r.path(KMS_SOCKET, DEFAULT_KMS_SOCKET), r.duration(KMS_DEADLINE, DEFAULT_KMS_DEADLINE)),
                new Atls(r.bool(ATLS_ENABLED, true), r.text(ATLS_SERVER_TPM), r.path(ATLS_SERVER_EVENT_LOG, DEFAULT_SERVER_EVENT_LOG)),
                new Kubernetes(r.bool(KUBERNETES_ENABLED, true),
                        Distribution.parse(r.text(KUBERNETES_DISTRIBUTION, DEFAULT_DISTRIBUTION)),
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
                initNode(r),
                r.integer(CONTROL_PLANES, DEFAULT_CONTROL_PLANES),
                masterSecret(r));
    }

    private static Optional<MasterSecret> masterSecret(PropertyReader r) {
        Optional<Path> file = r.path(MASTER_SECRET_FILE);
        Optional<Path> salt = r.path(MASTER_SECRET_SALT_FILE);
        if (file.isPresent() != salt.isPresent()) {
            throw new ConfigException(MASTER_SECRET_FILE + " and " + MASTER_SECRET_SALT_FILE + " must be set together");
        }
        return file.map(f -> new MasterSecret(f, salt.get()));
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
        return Optional.of(new InitNode(ak.get(), name.get(), uuids, r.text(INIT_NODE_VERIFY_ENDPOINT).orElse("")));
    }

    /** Every setting, defaults included; an absent optional setting is left out. */
    static Map<String, String> write(JoinServiceConfig c) {
        Map<String, String> p = new TreeMap<>();
        c.ports().putInto(p);
        p.put(ETCD_ENDPOINTS, String.join(",", c.etcd().endpoints()));
        p.put(ETCD_CA_FILE, c.etcd().caFile().toString());
        p.put(ETCD_CERT_FILE, c.etcd().certFile().toString());
        p.put(ETCD_KEY_FILE, c.etcd().keyFile().toString());
        p.put(ETCD_DEADLINE, PropertyReader.render(c.etcd().deadline()));
        p.put(KMS_SOCKET, c.kms().socket().toString());
        p.put(KMS_DEADLINE, PropertyReader.render(c.kms().deadline()));
        p.put(ATLS_ENABLED, Boolean.toString(c.atls().enabled()));
        c.atls().serverTpm().ifPresent(v -> p.put(ATLS_SERVER_TPM, v));
        p.put(ATLS_SERVER_EVENT_LOG, c.atls().serverEventLog().toString());
        p.put(KUBERNETES_ENABLED, Boolean.toString(c.kubernetes().enabled()));
        p.put(KUBERNETES_DISTRIBUTION, c.kubernetes().distribution().value());
        c.kubernetes().basePath().ifPresent(v -> p.put(KUBERNETES_BASE_PATH, v));
        p.put(KUBERNETES_NAMESPACE, c.kubernetes().namespace());
        p.put(KUBERNETES_TIMEOUT, PropertyReader.render(c.kubernetes().timeout()));
        if (!c.apiServerEndpoint().isEmpty()) {
            p.put(API_SERVER_ENDPOINT, c.apiServerEndpoint());
        }
        if (!c.kubernetesVersion().isEmpty()) {
            p.put(KUBERNETES_VERSION, c.kubernetesVersion());
        }
        p.put(MEASUREMENT_SALT_FILE, c.measurementSaltFile().toString());
        p.put(TOKEN_TTL, PropertyReader.render(c.tokenTtl()));
        p.put(MEMBER_CERTIFICATE_VALIDITY, PropertyReader.render(c.memberCertificateValidity()));
        p.put(CA_CERT_FILE, c.ca().certFile().toString());
        p.put(CA_KEY_FILE, c.ca().keyFile().toString());
        p.put(CONTROL_PLANE_DIR, c.controlPlaneDir().toString());
        p.put(MEASUREMENTS_FILE, c.measurements().file().toString());
        p.put(MEASUREMENTS_PUBLIC_KEY_FILE, c.measurements().publicKeyFile().toString());
        p.put(MEASUREMENTS_POLL_INTERVAL, PropertyReader.render(c.measurements().pollInterval()));
        c.ekCaFile().ifPresent(v -> p.put(EK_CA_FILE, v.toString()));
        p.put(INSECURE_TRUST_ANY_AK, Boolean.toString(c.insecureTrustAnyAk()));
        c.initNode().ifPresent(n -> {
            p.put(INIT_NODE_AK_NAME, n.akNameHex());
            p.put(INIT_NODE_NODE_NAME, n.nodeName());
            p.put(INIT_NODE_DISK_UUIDS, String.join(",", n.diskUuids()));
            if (!n.verifyEndpoint().isEmpty()) {
                p.put(INIT_NODE_VERIFY_ENDPOINT, n.verifyEndpoint());
            }
        });
        p.put(CONTROL_PLANES, Integer.toString(c.controlPlanes()));
        c.masterSecret().ifPresent(m -> {
            p.put(MASTER_SECRET_FILE, m.file().toString());
            p.put(MASTER_SECRET_SALT_FILE, m.saltFile().toString());
        });
        return p;
    }
}
