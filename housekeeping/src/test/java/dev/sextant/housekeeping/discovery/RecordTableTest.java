package dev.sextant.housekeeping.discovery;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RecordTableTest {
    private static final EndpointRecord A1 = new EndpointRecord("api.internal.demo", "10.0.0.1", 6443);
    private static final EndpointRecord A2 = new EndpointRecord("api.internal.demo", "10.0.0.2", 6443);
    private static final EndpointRecord J1 = new EndpointRecord("join.internal.demo", "10.0.0.1", 30090);

    @Test
    @DisplayName("an owner's entry is replaced only by a higher version of its own counter; older or equal copies change nothing")
    void ownerVersionWins() {
        RecordTable<String> table = new RecordTable<>();
        table.retainMembers(List.of("a"));
        assertTrue(table.offer("a", "node-a", 2, Set.of(A1, J1)));
        assertFalse(table.offer("a", "node-a", 1, Set.of(A1)), "a delayed older copy");
        assertFalse(table.offer("a", "node-a", 2, Set.of()), "an equal version");
        assertEquals(new TreeSet<>(Set.of(A1, J1)), table.records());
        assertTrue(table.offer("a", "node-a", 3, Set.of(A1)));
        assertEquals(new TreeSet<>(Set.of(A1)), table.records());
    }

    @Test
    @DisplayName("records live as long as their owner is a member: they vanish with it, and a non-member cannot add any")
    void recordsFollowMembership() {
        RecordTable<String> table = new RecordTable<>();
        table.retainMembers(List.of("a", "b"));
        table.offer("a", "node-a", 1, Set.of(A1));
        table.offer("b", "node-b", 1, Set.of(A2));
        assertTrue(table.retainMembers(List.of("a")), "b left");
        assertEquals(new TreeSet<>(Set.of(A1)), table.records());
        assertFalse(table.offer("b", "node-b", 2, Set.of(A2)), "a late message from a departed owner");
        assertFalse(table.offer("stranger", "node-stranger", 1, Set.of(A2)));
        assertEquals(new TreeSet<>(Set.of(A1)), table.records());
    }

    @Test
    @DisplayName("the members it holds no entry for are the ones a node asks to announce to it; an entry, even an empty one, ends the asking")
    void membersWithoutEntry() {
        RecordTable<String> table = new RecordTable<>();
        table.retainMembers(List.of("a", "b", "c"));
        table.offer("a", "node-a", 1, Set.of(A1));
        table.offer("b", "node-b", 1, Set.of());
        assertEquals(Set.of("c"), table.membersWithoutEntry());
        table.retainMembers(List.of("a", "d"));
        assertEquals(Set.of("d"), table.membersWithoutEntry(), "c left, d joined");
    }

    @Test
    @DisplayName("one name published by several owners resolves to all their addresses, sorted")
    void unionOfOwners() {
        RecordTable<String> table = new RecordTable<>();
        table.retainMembers(List.of("a", "b"));
        table.offer("b", "node-b", 7, Set.of(A2));
        table.offer("a", "node-a", 1, Set.of(A1, J1));
        SortedSet<String> api = RecordTable.addressesByName(table.records()).get("api.internal.demo");
        assertEquals(List.of("10.0.0.1", "10.0.0.2"), List.copyOf(api));
    }

    @Test
    @DisplayName("a member that left the view and came back (a healed partition) re-announces its unchanged version and is taken back")
    void unchangedVersionReturnsAfterDeparture() {
        RecordTable<String> table = new RecordTable<>();
        table.retainMembers(List.of("a", "b"));
        table.offer("b", "node-b", 5, Set.of(A2));
        table.retainMembers(List.of("a"));
        table.retainMembers(List.of("a", "b"));
        assertTrue(table.offer("b", "node-b", 5, Set.of(A2)));
        assertEquals(new TreeSet<>(Set.of(A2)), table.records());
    }

    @Test
    @DisplayName("a node that restarted under a new address replaces its old entry with its newer version")
    void restartedNodeReplacesItsOldEntry() {
        RecordTable<String> table = new RecordTable<>();
        table.retainMembers(List.of("a-old", "a-new"));
        table.offer("a-old", "node-a", 5, Set.of(A1));
        assertTrue(table.offer("a-new", "node-a", 9, Set.of(A2)));
        assertEquals(new TreeSet<>(Set.of(A2)), table.records());
    }
}
