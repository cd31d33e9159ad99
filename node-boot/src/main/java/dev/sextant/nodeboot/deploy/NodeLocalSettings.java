package dev.sextant.nodeboot.deploy;

import io.micronaut.context.annotation.ConfigurationProperties;
import io.micronaut.core.bind.annotation.Bindable;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The cluster services as services of the node (no Kubernetes).
 *
 * @param dir            where their configuration, secrets, bindings and cluster CA are written, and etcd's
 *                       data: on the encrypted state disk (mounted at /var/lib/rancher), so a rebooted node keeps them
 * @param kmsSocket      the KMS's Unix socket (its only way in: it has no TCP port for keys), in the RuntimeDirectory
 *                       sextant-kms.service makes for it (/run/sextant/kms, 0700 root)
 * @param joinPort       the join service's gRPC port on this node
 * @param joinTpm        the TPM the join service attests itself with ("" = it does not attest itself)
 * @param readyTimeout   how long init waits for etcd to answer and for the KMS's socket and the join port to accept connections (JVMs under TCG are slow)
 * @param etcdClientPort etcd's client port (TLS, client certificates of the etcd CA only)
 * @param etcdPeerPort   etcd's peer port (the same)
 * @param etcdAdvertiseHost       the host this node's member advertises to peers and clients ("" = its DNS name
 *                                {@code etcd-<node>.internal.<cluster>}; a test on loopback says 127.0.0.1)
 * @param etcdAdvertisePeerPort   the peer port it advertises (0 = {@code etcdPeerPort}; differs behind a port mapping)
 * @param etcdAdvertiseClientPort the client port it advertises (0 = {@code etcdClientPort})
 * @param clusterName    the cluster's name in {@code internal.<cluster>}, where the etcd member's name
 *                       {@code etcd-<node>.internal.<cluster>} lives (as endpoint discovery's records do)
 * @param hostsFile      the hosts file that maps that name to this node
 * @param etcdHeartbeat  the member's heartbeat, its election timeout ten of them (import-settings'
 *                       sextant.etcd-heartbeat-ms; etcd's 100 ms by default): slower where the members share
 *                       emulated cores, whose idle heartbeats otherwise take a large share of them
 */
@ConfigurationProperties("sextant.services")
public record NodeLocalSettings(
        @Bindable(defaultValue = "/var/lib/rancher/sextant/services") Path dir,
        @Bindable(defaultValue = "/run/sextant/kms/kms.sock") Path kmsSocket,
        @Bindable(defaultValue = "9090") int joinPort,
        @Bindable(defaultValue = "") String joinTpm,
        @Bindable(defaultValue = "5m") Duration readyTimeout,
        @Bindable(defaultValue = "2379") int etcdClientPort,
        @Bindable(defaultValue = "2380") int etcdPeerPort,
        @Bindable(defaultValue = "") String etcdAdvertiseHost,
        @Bindable(defaultValue = "0") int etcdAdvertisePeerPort,
        @Bindable(defaultValue = "0") int etcdAdvertiseClientPort,
        @Bindable(defaultValue = "sextant") String clusterName,
        @Bindable(defaultValue = "/etc/hosts") Path hostsFile,
        @Bindable(defaultValue = "100ms") Duration etcdHeartbeat) {
}
