package dev.sextant.housekeeping.discovery;

import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The merged view of everyone's records, keyed by owner. Only an owner writes its own entry, so
 * merging never compares clocks between nodes: of two copies of one owner's entry the higher
 * version (the owner's own publish counter) wins. Entries of owners that are not current members
 * are dropped and refused: records live exactly as long as their publisher is in the group, so a
 * node that leaves or crashes takes its records with it (no tombstones, nothing immortal).
 *
 * <p>Each entry also names the member that signed it (its certificate's node name), and the table
 * remembers the newest version it accepted from each node name for as long as it lives, members
 * gone or not: an older signed announcement replayed later, under any sender address, is refused.
 * The newest version itself is accepted again only while no entry holds that node name (its member
 * left the view and came back, say after a partition, and re-announces unchanged). A node name has
 * one entry: a newer announcement of the same node from another address (the node restarted and
 * rejoined) replaces the old address's entry. Versions are therefore publish times
 * (see {@link GossipNode#publish}), which keep growing across a member's restarts.
 *
 * <p>The table also holds the highest revocation list applied ({@link #revoke}): entries signed by
 * a revoked key are dropped when the list arrives and refused ever after, in the same lock as every
 * offer, so no announcement verified before the list can slip in after it. A lower or equal list
 * version changes nothing: an older list never un-revokes.
 *
 * <p>Each entry lives no longer than the certificate that vouched for it ({@link #dropExpired}): a
 * member's certificate lives an hour and is renewed only by a successful re-attestation, so the records
 * of a member that is no longer re-attested leave every table within the hour, while it is still in
 * the group and re-announcing them (receivers refuse the announcements of an expired certificate).
 *
 * @param <O> owner identity (a JGroups address in the node, anything comparable-by-equals in tests)
 */
public final class RecordTable<O> {
    private record Entry(String nodeName, ByteBuffer signer, Instant notAfter, long version, Set<EndpointRecord> records) {
    }

    private final Map<O, Entry> entries = new HashMap<>();
    /** Bounded by the certified node names: each costs the CA's signature. */
    private final Map<String, Long> newestByNode = new HashMap<>();
    private final Set<O> members = new HashSet<>();
    /** Version of the revocation list applied; 0 before any. */
    private long revocationVersion;
    private Set<ByteBuffer> revoked = Set.of();

    /** Installs the current membership; returns true if records disappeared with departed owners. */
    public synchronized boolean retainMembers(Collection<O> current) {
        members.clear();
        members.addAll(current);
        return entries.keySet().retainAll(members);
    }

    /** Current members this table holds no entry for (this node itself too, before it publishes). */
    public synchronized Set<O> membersWithoutEntry() {
        Set<O> missing = new HashSet<>(members);
        missing.removeAll(entries.keySet());
        return missing;
    }

    /**
     * Offers an owner's entry, signed by {@code nodeName} with its certified key {@code signerKey};
     * returns true if the resolved view may have changed. Refused (false): a signer whose key is
     * revoked; an owner that is not a member; a version older than the newest accepted from that node
     * name (a delayed copy or a replay); the newest version while an entry holds that node name (a
     * re-announce, or a replay of it from another address).
     */
    public synchronized boolean offer(O owner, String nodeName, byte[] signerKey, long version, Set<EndpointRecord> records) {
        return offer(owner, nodeName, signerKey, Instant.MAX, version, records);
    }

    /**
     * As {@link #offer(Object, String, byte[], long, Set)}, from a signer whose certificate ends at
     * {@code notAfter}: the entry is dropped then ({@link #dropExpired}).
     */
    public synchronized boolean offer(O owner, String nodeName, byte[] signerKey, Instant notAfter, long version,
                                      Set<EndpointRecord> records) {
        ByteBuffer signer = ByteBuffer.wrap(signerKey.clone());
        if (revoked.contains(signer) || !members.contains(owner)) {
            return false;
        }
        Long newest = newestByNode.get(nodeName);
        if (newest != null && (version < newest
                || version == newest && entries.values().stream().anyMatch(e -> e.nodeName().equals(nodeName)))) {
            return false;
        }
        newestByNode.put(nodeName, version);
        boolean changed = entries.entrySet().removeIf(e -> !e.getKey().equals(owner) && e.getValue().nodeName().equals(nodeName));
        Entry current = entries.put(owner, new Entry(nodeName, signer, notAfter, version, Set.copyOf(records)));
        return changed || current == null || !current.records().equals(records);
    }

    /**
     * Drops every entry whose signer's certificate has ended by {@code now}; returns the node names whose
     * entries were dropped. Their later announcements under the same certificate never reach the table:
     * the verifier refuses an expired certificate.
     */
    public synchronized Set<String> dropExpired(Instant now) {
        Set<String> dropped = new java.util.TreeSet<>();
        entries.values().removeIf(e -> {
            boolean expired = !now.isBefore(e.notAfter());
            if (expired) {
                dropped.add(e.nodeName());
            }
            return expired;
        });
        return dropped;
    }

    /**
     * Applies revocation list {@code listVersion}, revoking {@code keys}, if it is newer than the one
     * applied: drops every entry a listed key signed and refuses that key's entries from now on.
     * Returns false (and changes nothing) for a list not newer than the applied one.
     */
    public synchronized boolean revoke(long listVersion, Collection<byte[]> keys) {
        if (listVersion <= revocationVersion) {
            return false;
        }
        Set<ByteBuffer> listed = new HashSet<>();
        keys.forEach(k -> listed.add(ByteBuffer.wrap(k.clone())));
        revocationVersion = listVersion;
        revoked = Set.copyOf(listed);
        entries.values().removeIf(e -> revoked.contains(e.signer()));
        return true;
    }

    /** True when {@code key} is on the revocation list applied. */
    public synchronized boolean revoked(byte[] key) {
        return revoked.contains(ByteBuffer.wrap(key));
    }

    /** The version of the revocation list applied; 0 before any. */
    public synchronized long revocationVersion() {
        return revocationVersion;
    }

    /** Every record of every live owner, sorted; duplicates from several owners collapse. */
    public synchronized SortedSet<EndpointRecord> records() {
        SortedSet<EndpointRecord> all = new TreeSet<>();
        entries.values().forEach(e -> all.addAll(e.records()));
        return all;
    }

    /** Name to addresses, for /etc/hosts. */
    public static SortedMap<String, SortedSet<String>> addressesByName(Collection<EndpointRecord> records) {
        SortedMap<String, SortedSet<String>> names = new TreeMap<>();
        for (EndpointRecord r : records) {
            names.computeIfAbsent(r.name(), n -> new TreeSet<>()).add(r.address());
        }
        return names;
    }
}
