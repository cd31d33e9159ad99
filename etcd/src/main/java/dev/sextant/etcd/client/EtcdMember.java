package dev.sextant.etcd.client;

import java.util.List;

/**
 * A member as etcd lists it.
 *
 * @param name empty until the member has started and published its name (a learner just added has none)
 */
public record EtcdMember(long id, String name, List<String> peerUrls, List<String> clientUrls, boolean learner) {
    public EtcdMember {
        peerUrls = List.copyOf(peerUrls);
        clientUrls = List.copyOf(clientUrls);
    }

    public boolean started() {
        return !name.isEmpty();
    }

    /** The member's client URLs as {@code host:port} endpoints for an {@link EtcdClientConfig}. */
    public List<String> clientEndpoints() {
        return clientUrls.stream().map(url -> url.replaceFirst("^[a-z]+://", "").replaceFirst("/.*$", "")).toList();
    }

    /** etcd prints member IDs in hexadecimal. */
    public String hexId() {
        return Long.toHexString(id);
    }
}
