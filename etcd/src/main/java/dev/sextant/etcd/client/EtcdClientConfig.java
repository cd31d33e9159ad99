package dev.sextant.etcd.client;

import dev.sextant.etcd.pki.EtcdTlsFiles;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * Where an {@link EtcdClient} connects and how long it waits.
 *
 * @param endpoints   etcd client endpoints as {@code host:port} (an IP address or a name in the
 *                    member certificate's SANs), tried in this order first
 * @param tls         the etcd CA to trust (and no other) and this client's certificate and key
 * @param callTimeout the deadline of each attempt of a call at one endpoint
 */
public record EtcdClientConfig(List<String> endpoints, EtcdTlsFiles tls, Duration callTimeout) {
    /**
     * Longer than a healthy cluster's slowest write (a commit waits for a disk sync on a quorum; a
     * leader election takes about one second at etcd's default election timeout), short enough that a
     * call to a member cut off from its quorum moves on to the next member soon.
     */
    public static final Duration DEFAULT_CALL_TIMEOUT = Duration.ofSeconds(5);

    public EtcdClientConfig {
        endpoints = List.copyOf(endpoints);
        if (endpoints.isEmpty()) {
            throw new IllegalArgumentException("an etcd client needs at least one endpoint");
        }
        endpoints.forEach(EtcdClientConfig::port);
        Objects.requireNonNull(tls, "tls");
        if (callTimeout.isNegative() || callTimeout.isZero()) {
            throw new IllegalArgumentException("the etcd call timeout must be positive, got " + callTimeout);
        }
    }

    public EtcdClientConfig(List<String> endpoints, EtcdTlsFiles tls) {
        this(endpoints, tls, DEFAULT_CALL_TIMEOUT);
    }

    public EtcdClientConfig withCallTimeout(Duration timeout) {
        return new EtcdClientConfig(endpoints, tls, timeout);
    }

    static String host(String endpoint) {
        return endpoint.substring(0, endpoint.lastIndexOf(':'));
    }

    static int port(String endpoint) {
        int colon = endpoint.lastIndexOf(':');
        try {
            int port = Integer.parseInt(endpoint.substring(colon + 1));
            if (colon > 0 && port > 0 && port < 65536 && !endpoint.contains("/")) {
                return port;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException("an etcd endpoint is host:port, got \"" + endpoint + "\"");
    }
}
