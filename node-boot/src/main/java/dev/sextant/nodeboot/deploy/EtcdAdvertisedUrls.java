package dev.sextant.nodeboot.deploy;

/**
 * The URLs this control plane's etcd member advertises, {@code https://HOST:PORT}: the one place that decides
 * them, so the join request names (its {@code etcd_member}) exactly what {@code etcd.env} then says. HOST is
 * the member's DNS name unless the settings name another; the ports are the listen ports unless the settings
 * name others.
 *
 * @param peerUrl   what other members dial, and the member's identity in the cluster's membership
 * @param clientUrl what clients are told to dial
 */
public record EtcdAdvertisedUrls(String peerUrl, String clientUrl) {

    /**
     * For the member {@code memberName} of the cluster {@code clusterName}, as {@code settings} advertise it.
     *
     * @throws IllegalArgumentException when {@code memberName} cannot name an etcd member
     */
    public static EtcdAdvertisedUrls of(NodeLocalSettings settings, String memberName, String clusterName) {
        EtcdMemberIdentity.requireNodeName(memberName);
        String host = settings.etcdAdvertiseHost().isBlank() ? EtcdMemberIdentity.dnsName(memberName, clusterName)
                : settings.etcdAdvertiseHost().strip();
        // An IPv6 literal is bracketed in a URL.
        String urlHost = host.contains(":") && !host.startsWith("[") ? "[" + host + "]" : host;
        int peer = settings.etcdAdvertisePeerPort() == 0 ? settings.etcdPeerPort() : settings.etcdAdvertisePeerPort();
        int client = settings.etcdAdvertiseClientPort() == 0 ? settings.etcdClientPort() : settings.etcdAdvertiseClientPort();
        return new EtcdAdvertisedUrls("https://" + urlHost + ":" + peer, "https://" + urlHost + ":" + client);
    }
}
