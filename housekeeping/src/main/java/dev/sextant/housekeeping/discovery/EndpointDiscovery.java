package dev.sextant.housekeeping.discovery;

import dev.sextant.keys.member.CertificateRenewal;
import dev.sextant.keys.member.MemberCertificate;
import dev.sextant.keys.member.MemberCredentials;
import jakarta.annotation.PreDestroy;
import jakarta.inject.Singleton;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * Starts this node's discovery membership once it holds the group key (from its join ticket, or
 * derived from the master secret on the init node), publishes what this node serves, and keeps
 * the hosts file's managed block in step with the group's records.
 */
@Singleton
public final class EndpointDiscovery implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(EndpointDiscovery.class);

    private final GossipSettings settings;
    private final HostsFile hosts;
    private GossipNode node;

    public EndpointDiscovery(GossipSettings settings) {
        this.settings = settings;
        this.hosts = settings.hostsPath() == null ? null : new HostsFile(settings.hostsPath());
    }

    /** A switched-off instance, for code paths built without configuration. */
    public static EndpointDiscovery disabled() {
        return new EndpointDiscovery(new GossipSettings(false, "sextant", "", 7800, List.of(), "",
                java.time.Duration.ofSeconds(12), java.time.Duration.ofSeconds(30), 6443, 0, 2379));
    }

    /**
     * Joins the group with {@code groupKey} (32 bytes) and publishes this node's endpoints, signed with
     * {@code member}'s key. Does nothing when discovery is disabled or already running, or without
     * member credentials (other members would refuse every record); a failure is logged and leaves
     * the node without discovery, never without Kubernetes.
     */
    public synchronized void start(byte[] groupKey, String nodeName, boolean controlPlane, MemberCredentials member) {
        if (!settings.enabled() || node != null) {
            if (!settings.enabled()) {
                LOG.info("Discovery: disabled (sextant.discovery.gossip.enabled=false)");
            }
            return;
        }
        if (member == null) {
            LOG.warn("Discovery: not started: this node holds no member certificate (it joined without a discovery key)");
            return;
        }
        try {
            InetAddress bind = settings.bindAddress().isBlank() ? firstAddress() : InetAddress.getByName(settings.bindAddress());
            var config = new GossipNode.Config(nodeName, bind, settings.port(), seeds(), settings.domain(),
                    settings.failureTimeout(), settings.reannounce());
            node = GossipNode.start(config, groupKey, member, this::write);
            node.publish(ownRecords(nodeName, bind.getHostAddress(), controlPlane));
        } catch (Exception e) {
            LOG.warn("Discovery: not started: {}", e.toString());
            node = null;
        }
    }

    public boolean enabled() {
        return settings.enabled();
    }

    /** Records this node publishes: control planes serve the API, perhaps a join service, and an etcd member. */
    Set<EndpointRecord> ownRecords(String nodeName, String address, boolean controlPlane) {
        Set<EndpointRecord> own = new TreeSet<>();
        if (controlPlane) {
            own.add(new EndpointRecord("api." + settings.domain(), address, settings.apiPort()));
            if (settings.joinPort() > 0) {
                own.add(new EndpointRecord("join." + settings.domain(), address, settings.joinPort()));
            }
            own.add(new EndpointRecord(RecordVerifier.etcdMemberName(nodeName, settings.domain()), address, settings.datastorePort()));
        }
        return own;
    }

    /** Every live record (empty before start). */
    public synchronized Collection<EndpointRecord> records() {
        return node == null ? List.of() : node.records();
    }

    /**
     * Publishes the cluster's revocation list (as the discovery CA signed it) from this control plane;
     * every member applies it at once. False when discovery is not running here or this node already
     * holds that version or a higher one. IllegalArgumentException for a list that is not the
     * discovery CA's for this cluster; IllegalStateException on a worker.
     */
    public synchronized boolean publishRevocations(byte[] signedList) {
        return node != null && node.publishRevocations(signedList);
    }

    /** This node's member certificate as it signs with it now (the newest it holds); empty while discovery is not running. */
    public synchronized Optional<byte[]> memberCertificate() {
        return node == null ? Optional.empty() : Optional.of(node.certificate());
    }

    /**
     * Renews this node's member certificate ({@link GossipNode#renewCertificate}); IllegalStateException
     * while discovery is not running here (there is no certificate to renew).
     */
    public synchronized MemberCertificate renewCertificate(byte[] offered) throws CertificateRenewal.Refused {
        if (node == null) {
            throw new IllegalStateException("discovery is not running on this node: it holds no member certificate to renew");
        }
        return node.renewCertificate(offered);
    }

    /** Whether this node is in the group now (started, and not closed). */
    public synchronized boolean running() {
        return node != null;
    }

    /** The version of the revocation list this node applied; 0 before any, or when discovery is not running. */
    public synchronized long revocationVersion() {
        return node == null ? 0 : node.revocationVersion();
    }

    /** Join services from the group, for nodes that already hold the key. */
    public GossipDiscovery joinServices() {
        return new GossipDiscovery(this::records, "join." + settings.domain());
    }

    private void write(SortedSet<EndpointRecord> records) {
        if (hosts == null) {
            return;
        }
        try {
            if (hosts.update(RecordTable.addressesByName(records))) {
                LOG.info("Discovery: {} now lists {} name(s)", settings.hostsFile(), RecordTable.addressesByName(records).size());
            }
        } catch (IOException e) {
            // The next change or re-announce tries again; the old block stays meanwhile.
            LOG.warn("Discovery: updating {} failed: {}", settings.hostsFile(), e.getMessage());
        }
    }

    private List<InetSocketAddress> seeds() {
        List<InetSocketAddress> seeds = new ArrayList<>();
        for (String seed : settings.seeds()) {
            int colon = seed.lastIndexOf(':');
            boolean hasPort = colon > 0 && seed.indexOf(':') == colon;
            seeds.add(hasPort ? new InetSocketAddress(seed.substring(0, colon), Integer.parseInt(seed.substring(colon + 1)))
                    : new InetSocketAddress(seed, settings.port()));
        }
        return seeds;
    }

    /** Like kops on bare metal: the first non-loopback, non-link-local IPv4 address of an interface that is up. */
    static InetAddress firstAddress() throws SocketException {
        List<NetworkInterface> up = new ArrayList<>();
        for (NetworkInterface nic : java.util.Collections.list(NetworkInterface.getNetworkInterfaces())) {
            if (nic.isUp() && !nic.isLoopback()) {
                up.add(nic);
            }
        }
        up.sort(Comparator.comparing(NetworkInterface::getName));
        for (NetworkInterface nic : up) {
            for (InetAddress a : java.util.Collections.list(nic.getInetAddresses())) {
                if (a instanceof Inet4Address && !a.isLinkLocalAddress() && !a.isLoopbackAddress()) {
                    return a;
                }
            }
        }
        throw new SocketException("no non-loopback IPv4 address to publish; set sextant.discovery.gossip.bind-address");
    }

    @PreDestroy
    @Override
    public synchronized void close() {
        if (node != null) {
            node.close();
            node = null;
        }
    }
}
