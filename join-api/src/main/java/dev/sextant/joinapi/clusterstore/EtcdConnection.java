package dev.sextant.joinapi.clusterstore;

import dev.sextant.etcd.client.EtcdClient;
import dev.sextant.etcd.client.EtcdClientConfig;
import dev.sextant.etcd.client.EtcdException;
import dev.sextant.etcd.pki.EtcdTlsFiles;
import dev.sextant.grpcsupport.Refusal;
import dev.sextant.joinapi.refusal.JoinRefusal;
import dev.sextant.serviceconfig.JoinServiceConfig;
import jakarta.annotation.PreDestroy;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.io.UncheckedIOException;
import java.net.URI;
import java.util.List;
import java.util.function.Function;

/**
 * The join service's one etcd client, shared by the bindings and the membership changes of a control
 * plane's join: one set of connections to the members, one count of round trips.
 *
 * <p>The client is made at the first call, not at start: the service must start where no etcd answers
 * and no client certificate exists yet (the image's class-data-sharing training run, tests, a control
 * plane whose etcd comes up after it), and each call then fails on its own, UNAVAILABLE, naming etcd.
 * A client that could not be made (its certificate files unreadable) is tried again at the next call.
 */
@Singleton
public class EtcdConnection implements AutoCloseable {
    private final EtcdClientConfig config;
    /** Read on every call without the lock (volatile); made and closed under it. */
    private volatile EtcdClient client;

    @Inject
    public EtcdConnection(JoinServiceConfig config) {
        this(clientConfig(config.etcd()));
    }

    public EtcdConnection(EtcdClientConfig config) {
        this.config = config;
    }

    /** The join service's etcd settings as the client takes them: https URLs to host:port, the three TLS files. */
    public static EtcdClientConfig clientConfig(JoinServiceConfig.Etcd etcd) {
        List<String> endpoints = etcd.endpoints().stream().map(url -> {
            URI uri = URI.create(url);
            if (uri.getHost() == null || uri.getPort() < 0) {
                throw new IllegalStateException(JoinServiceConfig.ETCD_ENDPOINTS + ": '" + url + "' names no host and port");
            }
            return uri.getHost() + ":" + uri.getPort();
        }).toList();
        return new EtcdClientConfig(endpoints, new EtcdTlsFiles(etcd.caFile(), etcd.certFile(), etcd.keyFile()), etcd.deadline());
    }

    /** Runs {@code operation}; etcd not answering is UNAVAILABLE naming the cluster store. */
    public <T> T call(Function<EtcdClient, T> operation) throws Refusal {
        EtcdClient etcd = client();
        try {
            return operation.apply(etcd);
        } catch (EtcdException e) {
            throw unavailable(e);
        }
    }

    /**
     * etcd's own message (the operation, each endpoint, the status) goes to the log as the cause: it
     * names no key and no value, but the caller learns no endpoint either.
     */
    public static Refusal unavailable(EtcdException e) {
        return new Refusal(JoinRefusal.CLUSTER_STORE_UNAVAILABLE,
                "the cluster store (etcd) did not answer (" + e.code() + "); retry later", e);
    }

    /** The client, made now if this is the first call. */
    public EtcdClient client() throws Refusal {
        EtcdClient made = client;
        if (made != null) {
            return made;
        }
        synchronized (this) {
            if (client == null) {
                try {
                    client = new EtcdClient(config);
                } catch (UncheckedIOException e) {
                    throw new Refusal(JoinRefusal.CLUSTER_STORE_UNAVAILABLE,
                            "the cluster store (etcd) cannot be reached: the join service cannot read its etcd client certificate", e);
                }
            }
            return client;
        }
    }

    /** Round trips to etcd so far (every attempt at every member), for tests and benchmarks; 0 before the first call. */
    public long roundTrips() {
        EtcdClient made = client;
        return made == null ? 0 : made.roundTrips();
    }

    @Override
    @PreDestroy
    public synchronized void close() {
        if (client != null) {
            client.close();
            client = null;
        }
    }
}
