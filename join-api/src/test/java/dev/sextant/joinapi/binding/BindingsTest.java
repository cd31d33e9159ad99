package dev.sextant.joinapi.binding;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sextant.grpcsupport.Refusal;
import dev.sextant.joinapi.refusal.JoinRefusal;
import io.grpc.Status;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/** The rules over the in-memory double (the same transaction semantics as etcd; EtcdBindingStoreTest runs them on etcd). */
@DisplayName("Bindings: one transaction per claim, the rules decided from what it found")
class BindingsTest {
    private static final String V1 = "/sextant/v1/";
    private static final String DISK_A = "0a000000-0000-4000-8000-00000000000a";
    private static final String DISK_B = "0b000000-0000-4000-8000-00000000000b";
    private static final String VOLUME = "0c000000-0000-4000-8000-00000000000c";

    private final InMemoryBindingStoreDouble store = new InMemoryBindingStoreDouble();
    private final Bindings bindings = new Bindings(store, 3);

    private static MachineClaim worker(String ak, String disk, String node) {
        return new MachineClaim(ak, false, disk, node, List.of());
    }

    private static MachineClaim controlPlane(String ak, String disk, String node) {
        return new MachineClaim(ak, true, disk, node, List.of());
    }

    private static Refusal refused(JoinRefusal reason, String message, Executable call) {
        Refusal r = assertThrows(Refusal.class, call);
        assertEquals(reason, r.reason(), r.getMessage());
        assertTrue(r.getMessage().contains(message), r.getMessage());
        return r;
    }

    @Test
    @DisplayName("a first join writes the five keys of docs/cluster-store.md in one transaction; the same join again writes nothing and succeeds")
    void firstAndRetriedJoin() throws Exception {
        bindings.claim(worker("aa01", DISK_A, "worker-a"));
        assertEquals(Map.of(V1 + "bindings/disk/" + DISK_A, "aa01", V1 + "bindings/node/worker-a", "aa01",
                V1 + "bindings/machine/aa01/disk", DISK_A, V1 + "bindings/machine/aa01/node", "worker-a",
                V1 + "bindings/machine/aa01/role", "worker"), store.snapshot());
        assertEquals(1, store.roundTrips());
        bindings.claim(worker("aa01", DISK_A, "worker-a"));
        assertEquals(2, store.roundTrips(), "a retried join: one transaction, refused, every value this machine's");
        assertEquals(5, store.snapshot().size());
    }

    @Test
    @DisplayName("each rule refuses with its code, and a refused claim writes nothing")
    void rules() throws Exception {
        bindings.claim(worker("aa01", DISK_A, "worker-a"));
        Map<String, String> before = store.snapshot();
        refused(JoinRefusal.ONE_DISK_PER_MACHINE, "already owns state disk " + DISK_A, () -> bindings.claim(worker("aa01", DISK_B, "worker-a")));
        refused(JoinRefusal.DISK_BOUND_ELSEWHERE, "disk " + DISK_A + " belongs to another machine",
                () -> bindings.claim(worker("bb02", DISK_A, "worker-b")));
        refused(JoinRefusal.ONE_NAME_PER_MACHINE, "already joined as node worker-a", () -> bindings.claim(worker("aa01", DISK_A, "worker-z")));
        refused(JoinRefusal.NODE_NAME_TAKEN, "node name worker-a is held by another machine", () -> bindings.claim(worker("bb02", DISK_B, "worker-a")));
        refused(JoinRefusal.ONE_ROLE_PER_MACHINE, "already joined as worker and may not join as control-plane",
                () -> bindings.claim(controlPlane("aa01", DISK_A, "worker-a")));
        assertEquals(before, store.snapshot(), "no refused attempt left a key");
        assertEquals(Status.Code.PERMISSION_DENIED, JoinRefusal.DISK_BOUND_ELSEWHERE.code());
        assertEquals(Status.Code.ALREADY_EXISTS, JoinRefusal.NODE_NAME_TAKEN.code());
    }

    @Test
    @DisplayName("precedence: the machine's own disk before another's disk, before names, before the role")
    void precedence() throws Exception {
        bindings.claim(worker("aa01", DISK_A, "worker-a"));
        bindings.claim(worker("bb02", DISK_B, "worker-b"));
        // aa01 asks for bb02's disk and name as a control plane: four rules broken, the first answers.
        refused(JoinRefusal.ONE_DISK_PER_MACHINE, "already owns state disk " + DISK_A, () -> bindings.claim(controlPlane("aa01", DISK_B, "worker-b")));
        // a new machine asking for both: the disk first.
        refused(JoinRefusal.DISK_BOUND_ELSEWHERE, "disk " + DISK_B, () -> bindings.claim(worker("cc03", DISK_B, "worker-b")));
        // aa01, its own disk, bb02's name: its own name first.
        refused(JoinRefusal.ONE_NAME_PER_MACHINE, "already joined as node worker-a", () -> bindings.claim(controlPlane("aa01", DISK_A, "worker-b")));
    }

    @Test
    @DisplayName("a refused machine spent nothing: it joins with its own disk and name afterwards, and then owns only those")
    void refusalSpendsNothing() throws Exception {
        bindings.claim(worker("aa01", DISK_A, "worker-a"));
        refused(JoinRefusal.DISK_BOUND_ELSEWHERE, "belongs to another machine", () -> bindings.claim(worker("bb02", DISK_A, "worker-b")));
        assertFalse(store.snapshot().containsKey(V1 + "bindings/machine/bb02/disk"));
        bindings.claim(worker("bb02", DISK_B, "worker-b"));
        refused(JoinRefusal.ONE_DISK_PER_MACHINE, "already owns state disk " + DISK_B, () -> bindings.claim(worker("bb02", VOLUME, "worker-b")));
    }

    @Test
    @DisplayName("an older partial state (some of the machine's keys, all its own): the retried join writes the absent ones in a second transaction")
    void partialState() throws Exception {
        store.put(BindingKey.machineDisk("aa01"), DISK_A);
        store.put(BindingKey.disk(DISK_A), "aa01");
        long before = store.roundTrips();
        bindings.claim(worker("aa01", DISK_A, "worker-a"));
        assertEquals(2, store.roundTrips() - before);
        assertEquals(5, store.snapshot().size());
        assertEquals("worker", store.snapshot().get(V1 + "bindings/machine/aa01/role"));
    }

    @Test
    @DisplayName("a disk bound by another writer in upper-case hex still belongs to that AK (compared in constant time, case-insensitively)")
    void upperCaseOwner() throws Exception {
        store.put(BindingKey.disk(DISK_A), "AA01");
        store.put(BindingKey.machineDisk("aa01"), DISK_A);
        bindings.claim(worker("aa01", DISK_A, "worker-a"));
        assertTrue(bindings.ownsDisk(new byte[] {(byte) 0xaa, 0x01}, DISK_A));
        assertFalse(bindings.ownsDisk(new byte[] {(byte) 0xbb, 0x02}, DISK_A));
        assertFalse(bindings.ownsDisk(new byte[] {(byte) 0xaa, 0x01}, DISK_B));
    }

    @Test
    @DisplayName("the init node: disks, name, role, its control-plane place and the cluster's limit in one transaction; idempotent; a stored limit wins over a later setting")
    void initNode() throws Exception {
        MachineClaim init = new MachineClaim("ee00", true, DISK_A, "control-plane-0", List.of(VOLUME));
        bindings.claimInitNode(init);
        Map<String, String> bound = store.snapshot();
        assertEquals("ee00", bound.get(V1 + "bindings/disk/" + VOLUME));
        assertEquals("control-plane-0", bound.get(V1 + "control-planes/ee00"));
        assertEquals("3", bound.get(V1 + "cluster/control-planes"));
        assertEquals("control-plane", bound.get(V1 + "bindings/machine/ee00/role"));
        assertEquals(8, bound.size());
        assertEquals(1, store.roundTrips());

        Bindings restartedWithFive = new Bindings(store, 5);
        restartedWithFive.claimInitNode(init);
        assertEquals(bound, store.snapshot());
        assertEquals(3, restartedWithFive.controlPlaneLimit());
    }

    @Test
    @DisplayName("control planes: admitted up to the stored limit, then FAILED_PRECONDITION naming it; an admitted one joins again at a full cluster; a worker is never counted")
    void controlPlaneLimit() throws Exception {
        store.put(BindingKey.controlPlaneLimit(), "2");
        bindings.claim(controlPlane("c001", DISK_A, "cp-1"));
        bindings.claim(worker("w001", VOLUME, "worker-1"));
        bindings.claim(controlPlane("c002", DISK_B, "cp-2"));
        Refusal full = refused(JoinRefusal.CONTROL_PLANE_LIMIT_REACHED, "at most 2 control planes and has 2",
                () -> bindings.claim(controlPlane("c003", "0d000000-0000-4000-8000-00000000000d", "cp-3")));
        assertTrue(full.getMessage().contains("sextant init --control-planes"), full.getMessage());
        assertEquals(Status.Code.FAILED_PRECONDITION, full.toStatus().getStatus().getCode());
        assertFalse(store.snapshot().keySet().stream().anyMatch(k -> k.contains("c003") || k.contains("cp-3")));
        bindings.claim(controlPlane("c002", DISK_B, "cp-2"));
        bindings.claim(worker("w002", "0e000000-0000-4000-8000-00000000000e", "worker-2"));
    }

    @Test
    @DisplayName("without a stored limit (a cluster initialized before it existed) the service's setting counts, read again each time")
    void configuredLimit() throws Exception {
        Bindings one = new Bindings(store, 1);
        one.claim(controlPlane("c001", DISK_A, "cp-1"));
        refused(JoinRefusal.CONTROL_PLANE_LIMIT_REACHED, "at most 1 control planes", () -> one.claim(controlPlane("c002", DISK_B, "cp-2")));
        store.put(BindingKey.controlPlaneLimit(), "2");
        one.claim(controlPlane("c002", DISK_B, "cp-2"));
    }

    @Test
    @DisplayName("a control plane that lost the race for a place counts again: it gets a place that is left, or the limit refusal")
    void lostRaceCountsAgain() throws Exception {
        BindingStore racing = new InMemoryBindingStoreDouble() {
            private boolean raced;

            @Override
            public synchronized CreateOutcome createAll(Map<BindingKey, String> wanted, java.util.OptionalLong since) throws Refusal {
                if (!raced && since.isPresent()) {
                    raced = true; // another join service admits a control plane between this count and this write
                    put(BindingKey.controlPlane("f00d"), "cp-other");
                }
                return super.createAll(wanted, since);
            }
        };
        Bindings two = new Bindings(racing, 3);
        two.claim(controlPlane("c001", DISK_A, "cp-1"));
        assertEquals(6, racing.roundTrips(), "count, limit (none stored: read each time), write refused by the guard; again, admitted");
        Bindings full = new Bindings(racing, 3);
        full.claim(controlPlane("c002", DISK_B, "cp-2"));
        refused(JoinRefusal.CONTROL_PLANE_LIMIT_REACHED, "at most 3", () -> full.claim(controlPlane("c003", VOLUME, "cp-3")));
    }

    @Test
    @DisplayName("an AK value of a subject that could reach another key (a '/' in it) is refused before any key is built")
    void subjectsStayInTheirKey() {
        assertThrows(IllegalArgumentException.class, () -> BindingKey.disk("../node/x"));
        assertThrows(IllegalArgumentException.class, () -> BindingKey.machineDisk("AA01"));
        assertThrows(IllegalArgumentException.class, () -> BindingKey.node(""));
    }
}
