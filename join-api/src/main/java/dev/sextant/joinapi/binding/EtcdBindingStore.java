package dev.sextant.joinapi.binding;

import dev.sextant.etcd.client.CreateAllResult;
import dev.sextant.etcd.client.EtcdClient;
import dev.sextant.etcd.client.EtcdClientConfig;
import dev.sextant.etcd.client.EtcdException;
import dev.sextant.etcd.client.PrefixCount;
import dev.sextant.etcd.client.PrefixUnchangedSince;
import dev.sextant.etcd.pki.EtcdTlsFiles;
import dev.sextant.grpcsupport.Refusal;
import dev.sextant.joinapi.refusal.JoinRefusal;
import dev.sextant.serviceconfig.JoinServiceConfig;
import jakarta.annotation.PreDestroy;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.io.UncheckedIOException;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Function;

/**
 * The bindings in the cluster's etcd, keys as docs/cluster-store.md lays them out, shared by every join
 * service of the cluster: etcd orders two join services' transactions, so of two joiners racing for one
 * disk exactly one wins, whichever service each asked.
 *
 * <p>The client is made at the first call, not at start: the service must start where no etcd answers
 * and no client certificate exists yet (the image's class-data-sharing training run, tests, a control
 * plane whose etcd comes up after it), and each call then fails on its own, UNAVAILABLE, naming etcd.
 * A client that could not be made (its certificate files unreadable) is tried again at the next call.
 */
@Singleton
public class EtcdBindingStore implements BindingStore, AutoCloseable {
    private final EtcdClientConfig config;
    /** Read on every call without the lock (volatile); made and closed under it. */
    private volatile EtcdClient client;

    @Inject
    public EtcdBindingStore(JoinServiceConfig config) {
        this(clientConfig(config.etcd()));
    }

    public EtcdBindingStore(EtcdClientConfig config) {
        this.config = config;
    }

    /** The join service's etcd settings as the client takes them: https URLs to host:port, the three TLS files. */
    static EtcdClientConfig clientConfig(JoinServiceConfig.Etcd etcd) {
        List<String> endpoints = etcd.endpoints().stream().map(url -> {
            URI uri = URI.create(url);
            if (uri.getHost() == null || uri.getPort() < 0) {
                throw new IllegalStateException(JoinServiceConfig.ETCD_ENDPOINTS + ": '" + url + "' names no host and port");
            }
            return uri.getHost() + ":" + uri.getPort();
        }).toList();
        return new EtcdClientConfig(endpoints, new EtcdTlsFiles(etcd.caFile(), etcd.certFile(), etcd.keyFile()), etcd.deadline());
    }

    @Override
    public CreateOutcome createAll(Map<BindingKey, String> bindings, OptionalLong controlPlanesUnchangedSince) throws Refusal {
        Map<String, String> entries = new LinkedHashMap<>();
        Map<String, BindingKey> byKey = new LinkedHashMap<>();
        bindings.forEach((key, value) -> {
            entries.put(key.key(), value);
            byKey.put(key.key(), key);
        });
        Optional<PrefixUnchangedSince> guard = controlPlanesUnchangedSince.isPresent()
                ? Optional.of(new PrefixUnchangedSince(BindingKey.ROOT + BindingKey.CONTROL_PLANES, controlPlanesUnchangedSince.getAsLong()))
                : Optional.empty();
        CreateAllResult result = call(c -> c.createAll(entries, guard));
        if (result instanceof CreateAllResult.Refused refused) {
            Map<BindingKey, String> present = new LinkedHashMap<>();
            refused.present().forEach((key, value) -> present.put(byKey.get(key), value));
            return new NoneCreated(present, !refused.changedUnderPrefix().isEmpty());
        }
        return new AllCreated();
    }

    @Override
    public Optional<String> lookup(BindingKey key) throws Refusal {
        return call(c -> c.get(key.key()));
    }

    @Override
    public Admitted controlPlanes() throws Refusal {
        PrefixCount count = call(c -> c.count(BindingKey.ROOT + BindingKey.CONTROL_PLANES));
        return new Admitted(count.count(), count.revision());
    }

    @Override
    public long roundTrips() {
        EtcdClient made = client;
        return made == null ? 0 : made.roundTrips();
    }

    private <T> T call(Function<EtcdClient, T> operation) throws Refusal {
        EtcdClient etcd = client();
        try {
            return operation.apply(etcd);
        } catch (EtcdException e) {
            // etcd's own message (the operation, each endpoint, the status) goes to the log as the cause:
            // it names no key and no value, but the caller learns no endpoint either.
            throw new Refusal(JoinRefusal.CLUSTER_STORE_UNAVAILABLE,
                    "the cluster store (etcd) did not answer (" + e.code() + "); retry later", e);
        }
    }

    private EtcdClient client() throws Refusal {
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

    @Override
    @PreDestroy
    public synchronized void close() {
        if (client != null) {
            client.close();
            client = null;
        }
    }
}
