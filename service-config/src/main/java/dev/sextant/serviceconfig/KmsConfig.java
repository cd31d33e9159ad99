package dev.sextant.serviceconfig;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * Everything the KMS is configured with, and the one place that knows its property names and
 * defaults; the bootstrapper renders it to {@code kms.properties}, the KMS binds it back.
 *
 * <p>The KMS has no TCP port for keys: it serves gRPC on a Unix socket only, in a directory only its
 * own uid may write, and answers only connections from {@code peerUids} (the join service's uid, as the
 * kernel reports it). Its management port (health, metrics; no key material) is the only port it has.
 *
 * @param ports            the management port only (absent: the service's default); a gRPC port is refused
 * @param socket           the Unix socket the KMS serves on; its directory is made 0700 when missing
 * @param peerUids         the uids whose processes may connect (the join service's)
 * @param masterSecretFile the master secret, raw bytes (at least 16)
 * @param saltFile         its salt, raw bytes
 */
public record KmsConfig(ServerPorts ports, Path socket, Set<Integer> peerUids, Path masterSecretFile, Path saltFile) {
    public static final String PREFIX = "sextant.kms.";
    public static final String SOCKET = PREFIX + "socket";
    public static final String PEER_UIDS = PREFIX + "peer-uids";
    public static final String MASTER_SECRET_FILE = PREFIX + "master-secret-file";
    public static final String SALT_FILE = PREFIX + "salt-file";

    /**
     * The service's own property names, for a binder that looks names up one by one. The management port
     * is not among them: Micronaut binds its server itself (and a test's random port is -1).
     */
    public static final java.util.List<String> KEYS = java.util.List.of(SOCKET, PEER_UIDS, MASTER_SECRET_FILE, SALT_FILE);

    /** Where the join service's pod shares the socket (an emptyDir at /run/sextant), and a node-local KMS's RuntimeDirectory. */
    public static final String DEFAULT_SOCKET = "/run/sextant/kms/kms.sock";
    /** The uid the images name "sextant", which the join service runs as in its pod. */
    public static final int DEFAULT_PEER_UID = 10001;
    // Where the Kubernetes pod mounts the master secret (join-service-daemonset.yaml).
    static final String DEFAULT_MASTER_SECRET_FILE = "/var/config/mastersecret";
    static final String DEFAULT_SALT_FILE = "/var/config/salt";

    public KmsConfig {
        Objects.requireNonNull(ports, "ports");
        if (ports.grpc().isPresent()) {
            throw new ConfigException(ServerPorts.GRPC_PORT + " is set for the KMS, which has no gRPC port: it serves on its Unix socket ("
                    + SOCKET + ") only");
        }
        Objects.requireNonNull(socket, "socket");
        peerUids = Set.copyOf(peerUids);
        if (peerUids.isEmpty()) {
            throw new ConfigException(PEER_UIDS + " is empty: name the join service's uid, the one caller the KMS answers");
        }
        if (peerUids.stream().anyMatch(uid -> uid < 0)) {
            throw new ConfigException(PEER_UIDS + " holds a negative uid");
        }
        Objects.requireNonNull(masterSecretFile, "masterSecretFile");
        Objects.requireNonNull(saltFile, "saltFile");
    }

    /** The KMS with its management port on {@code managementPort}, and the other settings as given. */
    public static KmsConfig of(int managementPort, Path socket, Set<Integer> peerUids, Path masterSecretFile, Path saltFile) {
        return new KmsConfig(new ServerPorts(java.util.Optional.empty(), java.util.Optional.of(managementPort)), socket, peerUids,
                masterSecretFile, saltFile);
    }

    public static KmsConfig from(Properties properties) {
        return from(PropertyReader.asMap(properties));
    }

    /** Parses flat properties; a blank value takes the default. */
    public static KmsConfig from(Map<String, String> properties) {
        PropertyReader r = new PropertyReader(properties);
        return new KmsConfig(ServerPorts.from(r), r.path(SOCKET, DEFAULT_SOCKET), uids(r.text(PEER_UIDS, Integer.toString(DEFAULT_PEER_UID))),
                r.path(MASTER_SECRET_FILE, DEFAULT_MASTER_SECRET_FILE), r.path(SALT_FILE, DEFAULT_SALT_FILE));
    }

    private static Set<Integer> uids(String value) {
        try {
            return Arrays.stream(value.split(",")).map(String::strip).filter(v -> !v.isEmpty()).map(Integer::parseInt)
                    .collect(Collectors.toSet());
        } catch (NumberFormatException e) {
            throw new ConfigException(PEER_UIDS + " must be uids (whole numbers) separated by commas, not '" + value + "'");
        }
    }

    public Map<String, String> toProperties() {
        Map<String, String> p = new TreeMap<>();
        ports.putInto(p);
        p.put(SOCKET, socket.toString());
        p.put(PEER_UIDS, new TreeSet<>(peerUids).stream().map(String::valueOf).collect(Collectors.joining(",")));
        p.put(MASTER_SECRET_FILE, masterSecretFile.toString());
        p.put(SALT_FILE, saltFile.toString());
        return p;
    }

    public String toPropertiesText(String comment) {
        return PropertiesText.render(comment, toProperties());
    }
}
