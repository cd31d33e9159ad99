package dev.sextant.housekeeping.discovery;

import dev.sextant.keys.member.CertificateRenewal;
import dev.sextant.keys.member.MemberCertificate;
import dev.sextant.keys.member.MemberCredentials;
import dev.sextant.keys.member.MemberRole;
import dev.sextant.keys.member.RevocationList;
import org.jgroups.Address;
import org.jgroups.Event;
import org.jgroups.BytesMessage;
import org.jgroups.JChannel;
import org.jgroups.Message;
import org.jgroups.Receiver;
import org.jgroups.View;
import org.jgroups.stack.IpAddress;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * This node's membership in the discovery group: publishes its own records, keeps everyone
 * else's in a {@link RecordTable}, and reports each change of the resolved set. JGroups provides
 * membership, failure detection, reliable multicast, partition merging and the sealed transport;
 * this class only decides what a record is and whose it is: the member whose certified key signed
 * it ({@link RecordVerifier}), never merely the sender address a message carries.
 *
 * <p>Every view change makes every member re-announce its own entry (a newcomer learns everything,
 * a healed partition re-merges) and periodically after that. Members install a view at different
 * moments, and an announcement that reaches a member before it counts the sender as a member is
 * dropped (by JGroups or by the table), so the announcement alone can miss the slowest members. Each
 * member therefore also asks, once it has installed a view, every member it holds no entry for to
 * announce to it directly: a message without payload, answered by a unicast of the announcement.
 * Whoever installs a view last pulls what it missed; whatever a member sends after that reaches it.
 *
 * <p>Revocation: a control plane publishes the cluster's revocation list (signed by the discovery
 * CA) beside its records ({@link #publishRevocations}); every member applies the highest version it
 * has verified at once, dropping the records the listed keys signed and refusing their later ones
 * ({@link RecordTable#revoke}). Every control plane passes on the highest list it holds in its own
 * announcements, so a member that joins or restarts later learns it from whichever control plane it
 * hears first, also after the one that first published it has gone.
 *
 * <p>Short-lived identities: every entry leaves the table when the certificate that signed it ends
 * (checked every {@link #EXPIRY_SWEEP}), and this node signs with the newest certificate it holds: a
 * renewal ({@link #renewCertificate}, after a successful re-attestation) re-signs and re-announces its
 * records at once. A node whose own certificate has expired still joins and receives; the others refuse
 * its records until a renewal arrives.
 */
public final class GossipNode implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(GossipNode.class);
    static final String GROUP = "sextant-discovery";
    /** How often entries whose certificate ended are looked for: an expired member's records go within it. */
    static final Duration EXPIRY_SWEEP = Duration.ofSeconds(1);

    /**
     * @param nodeName        the node's name (JGroups' logical name, for logs)
     * @param domain          discovery domain, e.g. {@code internal.demo}; records outside it are refused
     * @param failureTimeout  how long a silent member stays in the group (its records with it)
     * @param reannounce      period of the idempotent re-announce
     */
    public record Config(String nodeName, InetAddress bind, int port, List<InetSocketAddress> seeds, String domain,
                         Duration failureTimeout, Duration reannounce) {
        public Config {
            seeds = List.copyOf(seeds);
        }
    }

    private final Config config;
    private final JChannel channel;
    private final RecordCodec codec;
    private final RecordVerifier verifier;
    private final RecordTable<Address> table = new RecordTable<>();
    /** This node's certified key and role: its own entry is offered under the key, and only control planes pass lists on. */
    private final byte[] ownKey;
    private final boolean controlPlane;
    private final ScheduledExecutorService worker;
    private final Consumer<SortedSet<EndpointRecord>> onChange;
    private final Object publishLock = new Object();
    /** This node's credentials and the signer over them: the newest certificate it holds (guarded by publishLock). */
    private MemberCredentials credentials;
    private RecordSigner signer;
    /** When this node's certificate ends: its own entry in its own table ends then too (guarded by publishLock). */
    private Instant ownNotAfter;
    private long version;
    private Set<EndpointRecord> own = Set.of();
    /** This node's signed announcement of {@link #own}; null before the first publish. */
    private byte[] announcement;
    /** The revocation list this control plane passes on (encoded as the CA signed it); null while it holds none. */
    private byte[] revocations;
    private SortedSet<EndpointRecord> lastReported = new TreeSet<>();

    private GossipNode(Config config, byte[] groupKey, MemberCredentials credentials,
                       Consumer<SortedSet<EndpointRecord>> onChange, DiscoveryStack.Factory stack) throws Exception {
        this.config = config;
        this.codec = new RecordCodec(config.domain());
        this.credentials = credentials;
        this.signer = new RecordSigner(codec, credentials);
        this.verifier = new RecordVerifier(codec, config.domain(), credentials, Clock.systemUTC());
        MemberCertificate certificate = credentials.certified();
        if (!certificate.validAt(Instant.now())) {
            LOG.warn("Discovery: this node's member certificate is valid only from {} to {}: the others refuse its records"
                    + " until a re-attestation renews it", certificate.notBefore(), certificate.notAfter());
        }
        this.ownNotAfter = certificate.notAfter();
        this.ownKey = certificate.publicKey();
        this.controlPlane = certificate.role() == MemberRole.CONTROL_PLANE;
        this.onChange = onChange;
        this.worker = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "discovery-" + config.nodeName());
            t.setDaemon(true);
            return t;
        });
        this.channel = new JChannel(stack.build(config.bind(), config.port(), config.seeds(), groupKey,
                config.failureTimeout()));
        channel.name(config.nodeName());
        channel.setReceiver(new Listener());
    }

    /**
     * Joins (or founds) the group; returns once this node is a member. {@code credentials} sign this
     * node's records and check everyone else's; their certificate must name {@code config.nodeName()}.
     */
    public static GossipNode start(Config config, byte[] groupKey, MemberCredentials credentials,
                                   Consumer<SortedSet<EndpointRecord>> onChange) throws Exception {
        return start(config, groupKey, credentials, onChange, DiscoveryStack::build);
    }

    /** With the stack {@code stack} builds: tests wrap the real one in protocols that drop or hold back messages. */
    static GossipNode start(Config config, byte[] groupKey, MemberCredentials credentials,
                            Consumer<SortedSet<EndpointRecord>> onChange, DiscoveryStack.Factory stack) throws Exception {
        String certified = credentials.certified().nodeName();
        if (!certified.equals(config.nodeName())) {
            throw new IllegalArgumentException("the member certificate is for " + certified + ", not " + config.nodeName());
        }
        GossipNode node = new GossipNode(config, groupKey, credentials, onChange, stack);
        node.channel.connect(GROUP);
        long period = config.reannounce().toMillis();
        node.worker.scheduleAtFixedRate(node::announce, period, period, TimeUnit.MILLISECONDS);
        node.worker.scheduleAtFixedRate(node::dropExpired, EXPIRY_SWEEP.toMillis(), EXPIRY_SWEEP.toMillis(), TimeUnit.MILLISECONDS);
        LOG.info("Discovery: joined as {} on {}:{}, {} member(s)", config.nodeName(), config.bind().getHostAddress(),
                config.port(), node.channel.getView().size());
        return node;
    }

    /** Replaces this node's records (all of them: an empty set withdraws everything it published). */
    public void publish(Set<EndpointRecord> records) {
        for (EndpointRecord r : records) {
            if (!r.inDomain(config.domain())) {
                throw new IllegalArgumentException("record " + r.name() + " lies outside " + config.domain());
            }
        }
        replaceOwn(records);
        worker.execute(() -> {
            announce();
            report();
        });
    }

    private void replaceOwn(Set<EndpointRecord> records) {
        synchronized (publishLock) {
            // A publish time, not a counter: receivers refuse versions not newer than the newest they
            // saw from this node name, also from before this node restarted.
            version = Math.max(version + 1, System.currentTimeMillis());
            own = Set.copyOf(records);
            announcement = signer.encode(version, own, revocations == null ? Map.of()
                    : Map.of(RecordVerifier.revocationsName(config.domain()), revocations));
            table.offer(channel.getAddress(), config.nodeName(), ownKey, ownNotAfter, version, own);
        }
    }

    /**
     * Takes {@code offered} as this node's certificate if {@link CertificateRenewal} allows it (the CA it
     * holds signed it, for its key, name, role and cluster, valid now and ending later), then signs and
     * announces its records with it at once. Refused otherwise, saying what differs; nothing changes.
     */
    public MemberCertificate renewCertificate(byte[] offered) throws CertificateRenewal.Refused {
        MemberCertificate renewed;
        synchronized (publishLock) {
            MemberCredentials next = CertificateRenewal.renew(credentials, offered, Instant.now());
            renewed = next.certified();
            credentials = next;
            signer = new RecordSigner(codec, next);
            ownNotAfter = renewed.notAfter();
            if (announcement != null) {
                replaceOwn(own);
            }
        }
        LOG.info("Discovery: renewed this node's member certificate, valid until {}", renewed.notAfter());
        if (!worker.isShutdown()) {
            worker.execute(() -> {
                announce();
                report();
            });
        }
        return renewed;
    }

    /** This node's certificate as it travels: the newest it holds. */
    public byte[] certificate() {
        synchronized (publishLock) {
            return credentials.certificate();
        }
    }

    /** Drops the entries whose certificate ended (this node's own too), and reports the change. */
    private void dropExpired() {
        Set<String> dropped = table.dropExpired(Instant.now());
        if (!dropped.isEmpty()) {
            LOG.warn("Discovery: dropped the records of {}: their member certificate expired (not re-attested in time)", dropped);
            report();
        }
    }

    /**
     * Publishes the cluster's revocation list {@code signedList} (as the discovery CA signed it) beside
     * this control plane's records and applies it here. Returns false when this node already applied
     * that version or a higher one (nothing is published). IllegalArgumentException when the list is
     * not the discovery CA's for this cluster; IllegalStateException on a worker, whose announcement
     * every member would refuse.
     */
    public boolean publishRevocations(byte[] signedList) {
        if (!controlPlane) {
            throw new IllegalStateException(config.nodeName() + " is a worker: only control planes publish the revocation list");
        }
        return apply(new RecordVerifier.SignedRevocations(verifier.verifyRevocations(signedList), signedList.clone()));
    }

    /** The version of the revocation list this node applied; 0 before any. */
    public long revocationVersion() {
        return table.revocationVersion();
    }

    /**
     * Applies {@code signed} if it is newer than the list applied; a control plane then passes it on
     * in a new announcement. The table drops the revoked entries at once; the listener hears of it on
     * the worker, like every other change.
     */
    private boolean apply(RecordVerifier.SignedRevocations signed) {
        RevocationList list = signed.list();
        boolean passOn = false;
        // One lock for applying and passing on: of two lists applied at once, the one passed on is the higher.
        synchronized (publishLock) {
            if (!table.revoke(list.version(), list.revokedKeys())) {
                return false;
            }
            if (controlPlane) {
                revocations = signed.encoded();
                if (announcement != null) {
                    replaceOwn(own);
                    passOn = true;
                }
            }
        }
        LOG.info("Discovery: applied revocation list version {} ({} key(s) revoked)", list.version(),
                list.revokedKeys().size());
        boolean announce = passOn;
        if (!worker.isShutdown()) {
            worker.execute(() -> {
                if (announce) {
                    announce();
                }
                report();
            });
        }
        return true;
    }

    /** Every live record, this node's included. */
    public SortedSet<EndpointRecord> records() {
        return table.records();
    }

    public int members() {
        View view = channel.getView();
        return view == null ? 0 : view.size();
    }

    /** The current view's id, for diagnostics ("-" before the first view). */
    String viewId() {
        View view = channel.getView();
        return view == null ? "-" : view.getViewId().toString();
    }

    /** To the group ({@code to} null) or to one member; nothing before the first publish. */
    private void announce(Address to) {
        byte[] payload;
        synchronized (publishLock) {
            payload = announcement;
        }
        if (payload == null) {
            return;
        }
        try {
            channel.send(new BytesMessage(to, payload));
        } catch (Exception e) {
            LOG.warn("Discovery: announcing own records to {} failed, retried in {} s: {}", to == null ? "the group" : to,
                    config.reannounce().toSeconds(), e.toString());
        }
    }

    private void announce() {
        announce(null);
    }

    /** Asks each member this node holds no entry for to announce to it (see the class comment). */
    private void requestMissing() {
        for (Address member : table.membersWithoutEntry()) {
            if (member.equals(channel.getAddress())) {
                continue;
            }
            try {
                channel.send(new BytesMessage(member));
            } catch (Exception e) {
                LOG.warn("Discovery: asking {} for its records failed: {}", member, e.toString());
            }
        }
    }

    private void report() {
        SortedSet<EndpointRecord> now = table.records();
        if (!now.equals(lastReported)) {
            lastReported = now;
            try {
                onChange.accept(now);
            } catch (RuntimeException e) {
                LOG.warn("Discovery: change listener failed: {}", e.toString());
            }
        }
    }

    private final class Listener implements Receiver {
        @Override
        public void viewAccepted(View delivered) {
            // The channel's current view, not the one delivered: JGroups hands the joining node's first
            // view to connect()'s thread while later views arrive on its pool, so on a busy machine a
            // first view can be applied after newer ones. Its shorter member list would then stay in the
            // record table and refuse every other member's announcements until the next view change,
            // which at rest never comes.
            View current = channel.getView();
            View view = current != null ? current : delivered;
            // Synchronously, so an announcement from a member of this view is never refused as a stranger's.
            table.retainMembers(view.getMembers());
            synchronized (publishLock) {
                if (version > 0) {
                    table.offer(channel.getAddress(), config.nodeName(), ownKey, ownNotAfter, version, own);
                }
            }
            LOG.info("Discovery: view {} with {} member(s)", view.getViewId(), view.size());
            if (worker.isShutdown()) {
                return;
            }
            worker.execute(() -> {
                announce();
                requestMissing();
                report();
            });
        }

        @Override
        public void receive(Message msg) {
            Address sender = msg.getSrc();
            if (sender == null || sender.equals(channel.getAddress())) {
                return;
            }
            if (msg.getLength() == 0) {
                // A member that installed a view without our entry asks for it. Only key holders reach
                // this point (the group is sealed), and the answer is what we multicast anyway.
                if (!worker.isShutdown()) {
                    worker.execute(() -> announce(sender));
                }
                return;
            }
            try {
                RecordVerifier.Verified a = verifier.verify(
                        Arrays.copyOfRange(msg.getArray(), msg.getOffset(), msg.getOffset() + msg.getLength()), ipOf(sender));
                a.revocations().ifPresent(GossipNode.this::apply);
                byte[] signerKey = a.certificate().publicKey();
                if (table.offer(sender, a.nodeName(), signerKey, a.certificate().notAfter(), a.version(), a.records())) {
                    if (!worker.isShutdown()) {
                        worker.execute(GossipNode.this::report);
                    }
                } else if (table.revoked(signerKey)) {
                    // The table refused it for the key (in the same lock as the list's drop); say so, unlike a replay.
                    LOG.warn("Discovery: ignored an announcement from {}: {}'s key is on the revocation list (version {})",
                            sender, a.nodeName(), table.revocationVersion());
                }
            } catch (IllegalArgumentException e) {
                LOG.warn("Discovery: ignored an announcement from {}: {}", sender, e.getMessage());
            }
        }
    }

    /** The IP address the transport knows {@code sender} by (its physical address). */
    private Optional<InetAddress> ipOf(Address sender) {
        Object physical = channel.down(new Event(Event.GET_PHYSICAL_ADDRESS, sender));
        return physical instanceof IpAddress ip && ip.getIpAddress() != null ? Optional.of(ip.getIpAddress()) : Optional.empty();
    }

    /**
     * Withdraws this node's records from the group, then leaves it. The withdrawal is what makes the
     * members drop the records at once: JGroups' leave is a single request to the coordinator, which a
     * coordinator still finishing a merge discards (its view handler is suspended until the merge
     * ends), and the node then leaves silently, its records kept until failure detection removes it
     * seconds later (a node leaving right after a healed partition).
     *
     * <p>The withdrawal goes to each member directly as well as to the group. A member that dropped
     * this node's multicasts while it did not yet count this node a member (during that same merge)
     * delivers its later multicasts only after the dropped ones are retransmitted, which a node that
     * has left no longer does; its unicasts are not held back. Receivers keep only the newest version
     * of each member's records, so the copies are harmless.
     */
    @Override
    public void close() {
        worker.shutdownNow();
        boolean published;
        synchronized (publishLock) {
            published = announcement != null;
        }
        if (published && channel.isConnected()) {
            replaceOwn(Set.of());
            announce();
            for (Address member : channel.getView().getMembers()) {
                if (!member.equals(channel.getAddress())) {
                    announce(member);
                }
            }
        }
        channel.close();
    }
}
