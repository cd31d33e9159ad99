package dev.sextant.housekeeping.discovery;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

@DisplayName("RecordTable: the merged view of everyone's records")
class RecordTableTest {
    private static final EndpointRecord A1 = new EndpointRecord("api.internal.demo", "10.0.0.1", 6443);
    private static final EndpointRecord A2 = new EndpointRecord("api.internal.demo", "10.0.0.2", 6443);
    private static final EndpointRecord J1 = new EndpointRecord("join.internal.demo", "10.0.0.1", 30090);

    @Test
    @DisplayName("an owner's entry is replaced only by a higher version of its own counter; older or equal copies change nothing")
    void ownerVersionWins() {
        RecordTable<String> table = new RecordTable<>();
        table.retainMembers(List.of("a"));
        assertTrue(table.offer("a", "node-a", key("node-a"), 2, Set.of(A1, J1)));
        assertFalse(table.offer("a", "node-a", key("node-a"), 1, Set.of(A1)), "a delayed older copy");
        assertFalse(table.offer("a", "node-a", key("node-a"), 2, Set.of()), "an equal version");
        assertEquals(new TreeSet<>(Set.of(A1, J1)), table.records());
        assertTrue(table.offer("a", "node-a", key("node-a"), 3, Set.of(A1)));
        assertEquals(new TreeSet<>(Set.of(A1)), table.records());
    }

    @Test
    @DisplayName("records live as long as their owner is a member: they vanish with it, and a non-member cannot add any")
    void recordsFollowMembership() {
        RecordTable<String> table = new RecordTable<>();
        table.retainMembers(List.of("a", "b"));
        table.offer("a", "node-a", key("node-a"), 1, Set.of(A1));
        table.offer("b", "node-b", key("node-b"), 1, Set.of(A2));
        assertTrue(table.retainMembers(List.of("a")), "b left");
        assertEquals(new TreeSet<>(Set.of(A1)), table.records());
        assertFalse(table.offer("b", "node-b", key("node-b"), 2, Set.of(A2)), "a late message from a departed owner");
        assertFalse(table.offer("stranger", "node-stranger", key("node-stranger"), 1, Set.of(A2)));
        assertEquals(new TreeSet<>(Set.of(A1)), table.records());
    }

    @Test
    @DisplayName("the members it holds no entry for are the ones a node asks to announce to it; an entry, even an empty one, ends the asking")
    void membersWithoutEntry() {
        RecordTable<String> table = new RecordTable<>();
        table.retainMembers(List.of("a", "b", "c"));
        table.offer("a", "node-a", key("node-a"), 1, Set.of(A1));
        table.offer("b", "node-b", key("node-b"), 1, Set.of());
        assertEquals(Set.of("c"), table.membersWithoutEntry());
        table.retainMembers(List.of("a", "d"));
        assertEquals(Set.of("d"), table.membersWithoutEntry(), "c left, d joined");
    }

    @Test
    @DisplayName("one name published by several owners resolves to all their addresses, sorted")
    void unionOfOwners() {
        RecordTable<String> table = new RecordTable<>();
        table.retainMembers(List.of("a", "b"));
        table.offer("b", "node-b", key("node-b"), 7, Set.of(A2));
        table.offer("a", "node-a", key("node-a"), 1, Set.of(A1, J1));
        SortedSet<String> api = RecordTable.addressesByName(table.records()).get("api.internal.demo");
        assertEquals(List.of("10.0.0.1", "10.0.0.2"), List.copyOf(api));
    }

    @Test
    @DisplayName("a member that left the view and came back (a healed partition) re-announces its unchanged version and is taken back")
    void unchangedVersionReturnsAfterDeparture() {
        RecordTable<String> table = new RecordTable<>();
        table.retainMembers(List.of("a", "b"));
        table.offer("b", "node-b", key("node-b"), 5, Set.of(A2));
        table.retainMembers(List.of("a"));
        table.retainMembers(List.of("a", "b"));
        assertTrue(table.offer("b", "node-b", key("node-b"), 5, Set.of(A2)));
        assertEquals(new TreeSet<>(Set.of(A2)), table.records());
    }

    @Test
    @DisplayName("a node that restarted under a new address replaces its old entry with its newer version")
    void restartedNodeReplacesItsOldEntry() {
        RecordTable<String> table = new RecordTable<>();
        table.retainMembers(List.of("a-old", "a-new"));
        table.offer("a-old", "node-a", key("node-a"), 5, Set.of(A1));
        assertTrue(table.offer("a-new", "node-a", key("node-a"), 9, Set.of(A2)));
        assertEquals(new TreeSet<>(Set.of(A2)), table.records());
    }

    @Test
    @DisplayName("a revocation list drops every entry the listed key signed, wherever it came from, and refuses that key's entries ever after")
    void revocationDropsAndRefusesTheKey() {
        RecordTable<String> table = new RecordTable<>();
        table.retainMembers(List.of("a", "b"));
        table.offer("a", "node-a", key("node-a"), 1, Set.of(A1, J1));
        table.offer("b", "node-b", key("node-b"), 1, Set.of(A2));
        assertTrue(table.revoke(1, List.of(key("node-b"))));
        assertEquals(new TreeSet<>(Set.of(A1, J1)), table.records());
        assertTrue(table.revoked(key("node-b")));
        assertFalse(table.offer("b", "node-b", key("node-b"), 2, Set.of(A2)), "a newer announcement of the revoked key");
        assertFalse(table.offer("b", "node-b", key("node-b"), 1, Set.of(A2)),
                "its newest announcement again, which the versions alone would take back now that no entry holds node-b");
        assertFalse(table.offer("a", "node-z", key("node-b"), 1, Set.of(A2)), "the revoked key under another certificate's name");
        assertEquals(new TreeSet<>(Set.of(A1, J1)), table.records());
        assertTrue(table.offer("b", "node-b", key("node-b-reborn"), 3, Set.of(A2)),
                "node-b as a new machine: another key, not revoked");
    }

    @Test
    @DisplayName("an older or equal revocation list changes nothing: it does not un-revoke; a newer one replaces the list")
    void olderListDoesNotUnrevoke() {
        RecordTable<String> table = new RecordTable<>();
        table.retainMembers(List.of("a"));
        assertTrue(table.revoke(5, List.of(key("node-a"))));
        assertFalse(table.revoke(4, List.of()), "version 4");
        assertFalse(table.revoke(5, List.of()), "version 5 again, without the key");
        assertEquals(5, table.revocationVersion());
        assertFalse(table.offer("a", "node-a", key("node-a"), 1, Set.of(A1)));
        assertTrue(table.revoke(6, List.of(key("node-x"))));
        assertTrue(table.offer("a", "node-a", key("node-a"), 1, Set.of(A1)), "the issuer took node-a off the list");
    }

    /** A stand-in for a member's certified key: 32 bytes named after it. */
    private static byte[] key(String name) {
        return Arrays.copyOf(name.getBytes(StandardCharsets.US_ASCII), 32);
    }
}
