package dev.sextant.nodeboot.endpointdiscovery;

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
 * @param <O> owner identity (a JGroups address in the node, anything comparable-by-equals in tests)
 */
public final class RecordTable<O> {
    private record Entry(long version, Set<EndpointRecord> records) {
    }

    private final Map<O, Entry> entries = new HashMap<>();
    private final Set<O> members = new HashSet<>();

    /** Installs the current membership; returns true if records disappeared with departed owners. */
    public synchronized boolean retainMembers(Collection<O> current) {
        members.clear();
        members.addAll(current);
        return entries.keySet().retainAll(members);
    }

    /** Offers an owner's entry; returns true if the resolved view may have changed. */
    public synchronized boolean offer(O owner, long version, Set<EndpointRecord> records) {
        if (!members.contains(owner)) {
            return false;
        }
        Entry current = entries.get(owner);
        if (current != null && current.version() >= version) {
            return false;
        }
        entries.put(owner, new Entry(version, Set.copyOf(records)));
        return current == null || !current.records().equals(records);
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
