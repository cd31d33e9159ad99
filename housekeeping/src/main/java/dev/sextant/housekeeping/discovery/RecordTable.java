package dev.sextant.housekeeping.discovery;

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
 * @param <O> owner identity (a JGroups address in the node, anything comparable-by-equals in tests)
 */
public final class RecordTable<O> {
    private record Entry(String nodeName, long version, Set<EndpointRecord> records) {
    }

    private final Map<O, Entry> entries = new HashMap<>();
    /** Bounded by the certified node names: each costs the CA's signature. */
    private final Map<String, Long> newestByNode = new HashMap<>();
    private final Set<O> members = new HashSet<>();

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
     * Offers an owner's entry, signed by {@code nodeName}; returns true if the resolved view may have
     * changed. Refused (false): an owner that is not a member; a version older than the newest
     * accepted from that node name (a delayed copy or a replay); the newest version while an entry
     * holds that node name (a re-announce, or a replay of it from another address).
     */
    public synchronized boolean offer(O owner, String nodeName, long version, Set<EndpointRecord> records) {
        if (!members.contains(owner)) {
            return false;
        }
        Long newest = newestByNode.get(nodeName);
        if (newest != null && (version < newest
                || version == newest && entries.values().stream().anyMatch(e -> e.nodeName().equals(nodeName)))) {
            return false;
        }
        newestByNode.put(nodeName, version);
        boolean changed = entries.entrySet().removeIf(e -> !e.getKey().equals(owner) && e.getValue().nodeName().equals(nodeName));
        Entry current = entries.put(owner, new Entry(nodeName, version, Set.copyOf(records)));
        return changed || current == null || !current.records().equals(records);
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
