package dev.sextant.serviceconfig;

import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.TreeMap;

/**
 * Everything the KMS is configured with, and the one place that knows its property names and
 * defaults; the bootstrapper renders it to {@code kms.properties}, the KMS binds it back.
 *
 * @param ports                      gRPC and management ports (absent: the service's defaults)
 * @param masterSecretFile           the master secret, raw bytes (at least 16)
 * @param saltFile                   its salt, raw bytes
 * @param insecureAllowRemoteCallers development only: answer callers other than loopback (warns on every call)
 */
public record KmsConfig(ServerPorts ports, Path masterSecretFile, Path saltFile, boolean insecureAllowRemoteCallers) {
    public static final String PREFIX = "sextant.kms.";
    public static final String MASTER_SECRET_FILE = PREFIX + "master-secret-file";
    public static final String SALT_FILE = PREFIX + "salt-file";
    public static final String INSECURE_ALLOW_REMOTE_CALLERS = PREFIX + "insecure-allow-remote-callers";

    /**
     * The service's own property names, for a binder that looks names up one by one. The ports are
     * not among them: Micronaut binds its servers itself (and a test's random port is -1).
     */
    public static final java.util.List<String> KEYS = java.util.List.of(
            MASTER_SECRET_FILE, SALT_FILE, INSECURE_ALLOW_REMOTE_CALLERS);

    // Where the Kubernetes pod mounts the master secret (join-service-daemonset.yaml).
    static final String DEFAULT_MASTER_SECRET_FILE = "/var/config/mastersecret";
    static final String DEFAULT_SALT_FILE = "/var/config/salt";

    public KmsConfig {
        Objects.requireNonNull(ports, "ports");
        Objects.requireNonNull(masterSecretFile, "masterSecretFile");
        Objects.requireNonNull(saltFile, "saltFile");
    }

    public static KmsConfig from(Properties properties) {
        return from(PropertyReader.asMap(properties));
    }

    /** Parses flat properties; a blank value takes the default. */
    public static KmsConfig from(Map<String, String> properties) {
        PropertyReader r = new PropertyReader(properties);
        return new KmsConfig(ServerPorts.from(r), r.path(MASTER_SECRET_FILE, DEFAULT_MASTER_SECRET_FILE),
                r.path(SALT_FILE, DEFAULT_SALT_FILE), r.bool(INSECURE_ALLOW_REMOTE_CALLERS, false));
    }

    public Map<String, String> toProperties() {
        Map<String, String> p = new TreeMap<>();
        ports.putInto(p);
        p.put(MASTER_SECRET_FILE, masterSecretFile.toString());
        p.put(SALT_FILE, saltFile.toString());
        p.put(INSECURE_ALLOW_REMOTE_CALLERS, Boolean.toString(insecureAllowRemoteCallers));
        return p;
    }

    public String toPropertiesText(String comment) {
        return PropertiesText.render(comment, toProperties());
    }
}
