package dev.sextant.joinapi.nodestate;

import dev.sextant.etcd.client.ConditionalWrite;
import dev.sextant.etcd.client.Fence;
import dev.sextant.etcd.client.Versioned;
import dev.sextant.grpcsupport.Refusal;
import dev.sextant.joinapi.clusterstore.EtcdConnection;
import dev.sextant.joinapi.refusal.JoinRefusal;
import jakarta.inject.Singleton;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The nodes' state in the cluster's etcd, keys as docs/re-attestation.md lays them out: each node's
 * reported endpoint and attestation record, the revoked AKs and the revocations counter. Every etcd
 * failure is the cluster store's UNAVAILABLE refusal ({@link EtcdConnection#call}); a value that is not
 * what this store writes is an {@link IllegalStateException} naming its key.
 *
 * <p>Writes of the re-attestation holder take its tenure's {@link Fence}: a holder paused past its term
 * writes nothing. The join service's own writes (an endpoint at a ticket, the operator's revocation) take
 * none: they are not the duty's.
 */
@Singleton
public class NodeStateStore {
    /** Only another revocation raising the counter at the same moment makes a revocation's transaction lose. */
    private static final int REVOKE_ATTEMPTS = 5;
    private static final int MEMBER_KEY_BYTES = 32;
    private final EtcdConnection etcd;
    private final Clock clock;

    public NodeStateStore(EtcdConnection etcd, Clock clock) {
        this.etcd = etcd;
        this.clock = clock;
    }

    /** Keeps {@code endpoint} ("host:port", checked by the caller) as where {@code node}'s VerifyService answers. */
    public void recordEndpoint(String node, String endpoint) throws Refusal {
        String key = NodeStateKeys.endpoint(node);
        etcd.call(c -> c.put(key, endpoint));
    }

    /**
     * What a join ticket leaves for {@code node} once its name is bound: the endpoint it reported and the
     * discovery key its member certificate certifies ({@code nodes/<name>/member-key}, lower-case hex of the
     * raw 32-byte Ed25519 key: the store's values are text), each when present, in one transaction. The key is
     * what the revocation list names if this machine is revoked; a machine that joined without one has none.
     */
    public void recordJoin(String node, Optional<String> endpoint, Optional<byte[]> memberKey) throws Refusal {
        Map<String, String> entries = new LinkedHashMap<>();
        endpoint.ifPresent(e -> entries.put(NodeStateKeys.endpoint(node), e));
        memberKey.ifPresent(k -> entries.put(NodeStateKeys.memberKey(node), HexFormat.of().formatHex(k)));
        if (!entries.isEmpty()) {
            etcd.call(c -> c.putAllIf(Optional.empty(), Map.of(), entries, List.of()));
        }
    }

    /** The discovery key {@code node}'s member certificate certifies; empty when it joined without one. */
    public Optional<byte[]> memberKey(String node) throws Refusal {
        String key = NodeStateKeys.memberKey(node);
        Optional<String> value = etcd.call(c -> c.get(key));
        if (value.isEmpty()) {
            return Optional.empty();
        }
        try {
            byte[] raw = HexFormat.of().parseHex(value.get());
            if (raw.length != MEMBER_KEY_BYTES) {
                throw new IllegalArgumentException("not " + MEMBER_KEY_BYTES + " bytes");
            }
            return Optional.of(raw);
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException(key + " in etcd is not a 32-byte key in hex", e);
        }
    }

    /** The endpoint {@code node} reported with its last ticket request; empty before any. */
    public Optional<String> endpoint(String node) throws Refusal {
        String key = NodeStateKeys.endpoint(node);
        return etcd.call(c -> c.get(key));
    }

    /** Writes {@code node}'s attestation record, unfenced (tests and tools; the holder fences its writes). */
    public void recordAttestation(String node, AttestationRecord attestation) throws Refusal {
        String key = NodeStateKeys.attestation(node);
        etcd.call(c -> c.put(key, NodeStateJson.attestation(attestation)));
    }

    /**
     * Writes {@code node}'s attestation record while {@code tenure} holds, its AK {@code ak} is not revoked and
     * the record is still the one the round read ({@code nodes/<name>/attestation} last modified at
     * {@code readAt}, 0: absent; {@link #states()}): a round's result, in one transaction that compares all
     * three, so neither a holder past its tenure, nor a round that a revocation overtook (the operator's, between
     * the round's read and this write), nor a round whose node rejoined meanwhile (its ticket wrote a fresh
     * record: {@link AttestationWrite#SUPERSEDED}) writes.
     */
    public AttestationWrite recordAttestation(String node, String ak, AttestationRecord attestation, Fence tenure, long readAt)
            throws Refusal {
        String key = NodeStateKeys.attestation(node);
        return recordUnlessRevoked(ak, Map.of(key, NodeStateJson.attestation(attestation)), Map.of(key, readAt), Optional.of(tenure));
    }

    /**
     * What a join or rejoin ticket leaves for {@code node}, whose machine ({@code ak}) the join service has just
     * attested over aTLS against the set in force (its image {@code imageVersion}): the record a round that
     * attested it writes ({@link AttestationRecord#attested}, now), with the endpoint it reported and the
     * discovery key its member certificate certifies, each when present (see {@link #recordJoin}), in one
     * transaction that writes nothing once {@code revoked/<ak>} exists. A revocation that lands after the
     * ticket's own check is then either after this write (and turns the record revoked) or before it
     * ({@link AttestationWrite#REVOKED}: the caller refuses the ticket); never does a ticket resurrect it.
     */
    public AttestationWrite recordAttested(String node, String ak, String imageVersion, Optional<String> endpoint,
                                           Optional<byte[]> memberKey) throws Refusal {
        Map<String, String> entries = new LinkedHashMap<>();
        entries.put(NodeStateKeys.attestation(node), NodeStateJson.attestation(AttestationRecord.attested(clock.instant(), imageVersion)));
        endpoint.ifPresent(e -> entries.put(NodeStateKeys.endpoint(node), e));
        memberKey.ifPresent(k -> entries.put(NodeStateKeys.memberKey(node), HexFormat.of().formatHex(k)));
        return recordUnlessRevoked(ak, entries, Map.of(), Optional.empty());
    }

    /**
     * The init node's record at init ({@code sextant init} verified it over aTLS against the image's measurements
     * moments before its join service first started): attested now, its image unknown to the join service (the
     * first round names it), written only while {@code node} has no record and {@code ak} is not revoked, so it
     * never replaces what a round or a ticket found (a later start, another control plane's join service).
     */
    public AttestationWrite recordInitNode(String node, String ak) throws Refusal {
        String key = NodeStateKeys.attestation(node);
        AttestationRecord atInit = new AttestationRecord(AttestationState.ATTESTED, Optional.of(clock.instant()), Optional.empty(),
                Optional.empty(), 0);
        return recordUnlessRevoked(ak, Map.of(key, NodeStateJson.attestation(atInit)), Map.of(key, 0L), Optional.empty());
    }

    /**
     * The one writer of attested nodes' records: {@code entries} only while {@code revoked/<ak>} is absent, each key
     * of {@code unmodifiedSince} is at its revision (a round's: the record it read) and the tenure holds.
     */
    private AttestationWrite recordUnlessRevoked(String ak, Map<String, String> entries, Map<String, Long> unmodifiedSince,
                                                 Optional<Fence> tenure) throws Refusal {
        String revokedKey = NodeStateKeys.revoked(ak);
        Map<String, Long> compared = new LinkedHashMap<>(unmodifiedSince);
        compared.put(revokedKey, 0L);
        List<String> read = new ArrayList<>(unmodifiedSince.keySet());
        read.add(revokedKey);
        ConditionalWrite write = etcd.call(c -> c.putAllIf(tenure, compared, entries, read));
        if (write.written()) {
            return AttestationWrite.WRITTEN;
        }
        if (write.read().containsKey(revokedKey)) {
            return AttestationWrite.REVOKED;
        }
        return moved(unmodifiedSince, write.read()) ? AttestationWrite.SUPERSEDED : AttestationWrite.TENURE_ENDED;
    }

    /** Whether a key of {@code expected} is at another revision in {@code read} (absent there: 0). */
    private static boolean moved(Map<String, Long> expected, Map<String, Versioned> read) {
        return expected.entrySet().stream().anyMatch(e -> {
            Versioned now = read.get(e.getKey());
            return (now == null ? 0L : now.modRevision()) != e.getValue();
        });
    }

    /** {@code node}'s attestation record; empty before the first round asked it. */
    public Optional<AttestationRecord> attestation(String node) throws Refusal {
        String key = NodeStateKeys.attestation(node);
        return etcd.call(c -> c.get(key)).map(value -> NodeStateJson.attestation(key, value));
    }

    /**
     * Revokes {@code ak} (bound to {@code node}) for {@code reason}, by {@code by}: in one transaction,
     * {@code revoked/<ak>} created only if absent, the node's record turned revoked and the counter raised.
     * Returns the revocation in force: this one, or the first one's when the AK was revoked before (a
     * revocation is final; a second one changes nothing, not even the counter).
     */
    public Revocation revoke(String node, String ak, String reason, String by) throws Refusal {
        return revoke(node, ak, reason, by, Optional.empty(), OptionalLong.empty()).inForce().orElseThrow();
    }

    /**
     * {@link #revoke(String, String, String, String)} by the holder, while {@code tenure} holds and, when
     * {@code attestationReadAt} is given, while {@code node}'s record is still the one the round read (its
     * revision, 0: absent): a revocation the round computed from that record ({@code UNREACHABLE}, counting the
     * missed rounds) is stale once a join or rejoin wrote a fresh one ({@link AttestationWrite#SUPERSEDED}).
     * A revocation on this round's own evidence takes none: see {@code ReAttestationDuty}.
     */
    public RevocationWrite revoke(String node, String ak, String reason, String by, Fence tenure, OptionalLong attestationReadAt)
            throws Refusal {
        return revoke(node, ak, reason, by, Optional.of(tenure), attestationReadAt);
    }

    private RevocationWrite revoke(String node, String ak, String reason, String by, Optional<Fence> tenure,
                                   OptionalLong attestationReadAt) throws Refusal {
        String revokedKey = NodeStateKeys.revoked(ak);
        String attestationKey = NodeStateKeys.attestation(node);
        Revocation revocation = new Revocation(node, reason, clock.instant(), by);
        for (int attempt = 0; attempt < REVOKE_ATTEMPTS; attempt++) {
            Optional<Revocation> earlier = revocation(ak);
            if (earlier.isPresent()) {
                return new RevocationWrite(AttestationWrite.REVOKED, earlier);
            }
            Optional<Versioned> counter = etcd.call(c -> c.getVersioned(NodeStateKeys.REVOCATIONS_VERSION));
            long version = counter.map(v -> counter(v.value())).orElse(0L);
            AttestationRecord revoked = attestation(node).orElse(new AttestationRecord(AttestationState.REVOKED,
                    Optional.empty(), Optional.empty(), Optional.empty(), 0)).revoked(reason);
            Map<String, Long> unmodified = new LinkedHashMap<>();
            unmodified.put(revokedKey, 0L);
            unmodified.put(NodeStateKeys.REVOCATIONS_VERSION, counter.map(Versioned::modRevision).orElse(0L));
            attestationReadAt.ifPresent(at -> unmodified.put(attestationKey, at));
            Map<String, String> entries = new LinkedHashMap<>();
            entries.put(revokedKey, NodeStateJson.revocation(revocation));
            entries.put(attestationKey, NodeStateJson.attestation(revoked));
            entries.put(NodeStateKeys.REVOCATIONS_VERSION, Long.toString(version + 1));
            ConditionalWrite write = etcd.call(c -> c.putAllIf(tenure, unmodified, entries,
                    List.of(revokedKey, NodeStateKeys.REVOCATIONS_VERSION, attestationKey)));
            Versioned inForce = write.read().get(revokedKey);
            if (write.written()) {
                return new RevocationWrite(AttestationWrite.WRITTEN, Optional.of(NodeStateJson.revocation(revokedKey, inForce.value())));
            }
            if (inForce != null) {
                // The first revocation (or this call's own first attempt, whose answer was lost) is the one in force.
                return new RevocationWrite(AttestationWrite.REVOKED, Optional.of(NodeStateJson.revocation(revokedKey, inForce.value())));
            }
            if (attestationReadAt.isPresent() && moved(Map.of(attestationKey, attestationReadAt.getAsLong()), write.read())) {
                return new RevocationWrite(AttestationWrite.SUPERSEDED, Optional.empty());
            }
            Versioned counterNow = write.read().get(NodeStateKeys.REVOCATIONS_VERSION);
            long expected = counter.map(Versioned::modRevision).orElse(0L);
            if ((counterNow == null ? 0L : counterNow.modRevision()) == expected) {
                return new RevocationWrite(AttestationWrite.TENURE_ENDED, Optional.empty()); // no key moved: the fence refused
            }
        }
        throw new Refusal(JoinRefusal.CLUSTER_STORE_UNAVAILABLE, "the revocations counter kept changing in the cluster store; retry later");
    }

    /** True when {@code ak} was revoked: a revocation is final for the AK. */
    public boolean isRevoked(String ak) throws Refusal {
        return revocation(ak).isPresent();
    }

    /** {@code ak}'s revocation; empty when it was never revoked. */
    public Optional<Revocation> revocation(String ak) throws Refusal {
        String key = NodeStateKeys.revoked(ak);
        return etcd.call(c -> c.get(key)).map(value -> NodeStateJson.revocation(key, value));
    }

    /**
     * Every revocation by AK, and the counter (the version of the list they make). The counter is read
     * first: a revocation landing between the two reads then adds a key to a list of the lower version
     * (harmless, revocation is final) instead of leaving a version without its key (a list the next
     * one of the same version could never replace).
     */
    public Revocations revocations() throws Refusal {
        Optional<String> version = etcd.call(c -> c.get(NodeStateKeys.REVOCATIONS_VERSION));
        Map<String, String> revoked = etcd.call(c -> c.getPrefix(NodeStateKeys.REVOKED));
        Map<String, Revocation> byAk = new LinkedHashMap<>();
        revoked.forEach((key, value) -> byAk.put(key.substring(NodeStateKeys.REVOKED.length()), NodeStateJson.revocation(key, value)));
        return new Revocations(version.map(NodeStateStore::counter).orElse(0L), byAk);
    }

    /** The revocations counter alone ({@code revocations/version}, 0 before the first revocation). */
    public long revocationsVersion() throws Refusal {
        return etcd.call(c -> c.get(NodeStateKeys.REVOCATIONS_VERSION)).map(NodeStateStore::counter).orElse(0L);
    }

    /**
     * The signed revocation list in {@code revocations/list} (base64 of the bytes the discovery CA signed)
     * with its modification revision; empty before the first. Not trusted as read: whoever can write etcd
     * can write it, so its reader verifies it (a value that is not base64 reads as no bytes, which no
     * verification passes).
     */
    public Optional<StoredRevocationList> revocationList() throws Refusal {
        return etcd.call(c -> c.getVersioned(NodeStateKeys.REVOCATION_LIST)).map(v -> new StoredRevocationList(decode(v.value()),
                v.modRevision()));
    }

    /**
     * Writes {@code encoded} (a signed revocation list) to {@code revocations/list} only if that key was
     * last modified at {@code modRevision} (0: absent) and, when given, while {@code tenure} holds. Returns the
     * key's new modification revision; empty, with nothing written, when another writer came first or the
     * tenure ended.
     */
    public OptionalLong replaceRevocationList(byte[] encoded, long modRevision, Optional<Fence> tenure) throws Refusal {
        String value = Base64.getEncoder().encodeToString(encoded);
        ConditionalWrite write = etcd.call(c -> c.putAllIf(tenure, Map.of(NodeStateKeys.REVOCATION_LIST, modRevision),
                Map.of(NodeStateKeys.REVOCATION_LIST, value), List.of()));
        return write.written() ? OptionalLong.of(write.revision()) : OptionalLong.empty();
    }

    private static byte[] decode(String value) {
        try {
            return Base64.getDecoder().decode(value);
        } catch (IllegalArgumentException e) {
            return new byte[0];
        }
    }

    /**
     * Every node bound by name (bindings {@code bindings/node/<name>}), in name order, joined with its
     * role, endpoint, attestation record and revocation: {@link #states()}'s nodes.
     */
    public List<NodeStatus> all() throws Refusal {
        return states().nodes();
    }

    /**
     * Every node bound by name, in name order, joined with its role, endpoint, attestation record and
     * revocation, and each node's record with its modification revision: the bindings, the nodes' keys and the
     * revocations in one read at one revision (one round trip), so a round computes its results from, and
     * compares its writes with, exactly what it listed.
     */
    public NodeStates states() throws Refusal {
        Map<String, Versioned> read = etcd.call(c -> c.getPrefixesVersioned(List.of(NodeStateKeys.NODE_BINDINGS,
                NodeStateKeys.MACHINE_BINDINGS, NodeStateKeys.NODES, NodeStateKeys.REVOKED)));
        List<NodeStatus> all = new ArrayList<>();
        Map<String, VersionedAttestation> records = new LinkedHashMap<>();
        read.forEach((nameKey, boundAk) -> {
            if (!nameKey.startsWith(NodeStateKeys.NODE_BINDINGS)) {
                return;
            }
            String ak = boundAk.value();
            String name = nameKey.substring(NodeStateKeys.NODE_BINDINGS.length());
            String role = Optional.ofNullable(read.get(NodeStateKeys.MACHINE_BINDINGS + ak + "/role")).map(Versioned::value).orElse("");
            Optional<String> endpoint = Optional.ofNullable(read.get(NodeStateKeys.endpoint(name))).map(Versioned::value);
            String attestationKey = NodeStateKeys.attestation(name);
            Optional<Versioned> stored = Optional.ofNullable(read.get(attestationKey));
            Optional<AttestationRecord> attestation = stored.map(value -> NodeStateJson.attestation(attestationKey, value.value()));
            records.put(name, stored.isEmpty() ? VersionedAttestation.ABSENT
                    : new VersionedAttestation(attestation, stored.get().modRevision()));
            String revokedKey = NodeStateKeys.revoked(ak);
            Optional<Revocation> revocation = Optional.ofNullable(read.get(revokedKey))
                    .map(value -> NodeStateJson.revocation(revokedKey, value.value()));
            AttestationState state = revocation.isPresent() ? AttestationState.REVOKED
                    : attestation.map(a -> a.state() == AttestationState.REVOKED ? AttestationState.UNREACHABLE : a.state())
                    .orElse(AttestationState.UNREACHABLE);
            String reason = revocation.map(Revocation::reason)
                    .or(() -> attestation.flatMap(AttestationRecord::failure))
                    .orElse(attestation.isPresent() ? "" : NodeStatus.NOT_REATTESTED_YET);
            all.add(new NodeStatus(name, ak, role, endpoint, attestation.flatMap(AttestationRecord::imageVersion),
                    attestation.flatMap(AttestationRecord::lastSuccess), state, reason,
                    attestation.map(AttestationRecord::missed).orElse(0)));
        });
        return new NodeStates(all, records);
    }

    private static long counter(String value) {
        try {
            long version = Long.parseLong(value);
            if (version < 0) {
                throw new NumberFormatException();
            }
            return version;
        } catch (NumberFormatException e) {
            throw new IllegalStateException(NodeStateKeys.REVOCATIONS_VERSION + " in etcd is not a counter", e);
        }
    }
}
