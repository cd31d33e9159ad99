package dev.sextant.nodeboot.revocations;

import dev.sextant.etcd.client.EtcdClient;
import dev.sextant.etcd.client.EtcdClientConfig;
import dev.sextant.etcd.client.EtcdException;
import dev.sextant.etcd.client.Versioned;
import dev.sextant.etcd.pki.EtcdTlsFiles;
import dev.sextant.nodeboot.deploy.ControlPlaneEtcd;
import dev.sextant.nodeboot.deploy.NodeLocalSettings;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * {@code revocations/list} as this control plane reads it: from its own etcd member on loopback, with the
 * client certificate the bootstrapper issues its join service at every start ({@link ControlPlaneEtcd}).
 * A node without those files (a worker, or a control plane before its etcd is prepared) reads nothing;
 * the client is made at the first read that finds them.
 */
public final class ControlPlaneRevocationList implements RevocationListPoller.Source, AutoCloseable {
    /** The key docs/cluster-store.md lists, below the store's root {@code /sextant/v1/}. */
    public static final String KEY = "/sextant/v1/revocations/list";
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(2);

    private final EtcdTlsFiles files;
    private final String endpoint;
    private EtcdClient client;

    public ControlPlaneRevocationList(NodeLocalSettings settings) {
        ControlPlaneEtcd etcd = new ControlPlaneEtcd(settings);
        this.files = etcd.joinClientFiles();
        this.endpoint = etcd.clientEndpoint();
    }

    @Override
    public synchronized Optional<Versioned> read() throws EtcdException {
        if (client == null) {
            if (!Files.isReadable(files.keyFile()) || !Files.isReadable(files.certFile()) || !Files.isReadable(files.caFile())) {
                return Optional.empty();
            }
            client = new EtcdClient(new EtcdClientConfig(List.of(endpoint), files, CALL_TIMEOUT));
        }
        return client.getVersioned(KEY);
    }

    @Override
    public synchronized void close() {
        if (client != null) {
            client.close();
            client = null;
        }
    }
}
