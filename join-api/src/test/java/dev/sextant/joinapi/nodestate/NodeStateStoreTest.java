package dev.sextant.joinapi.nodestate;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sextant.etcd.client.CreateIfAbsentResult;
import dev.sextant.etcd.client.EtcdClient;
import dev.sextant.etcd.client.Fence;
import dev.sextant.joinapi.TestClusterStore;
import dev.sextant.joinapi.clusterstore.EtcdConnection;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

@DisplayName("Node state in etcd: the agreed keys, a revocation in one transaction and final, the operator's view joined with the bindings")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class NodeStateStoreTest {
    private static final String V1 = "/sextant/v1/";
    private static final Instant NOW = Instant.parse("2026-11-27T20:00:00Z");

    private TestClusterStore etcd;
    private EtcdConnection connection;
    private NodeStateStore store;
    private EtcdClient admin;

    @BeforeAll
    void start() {
        etcd = new TestClusterStore(1);
        admin = etcd.admin();
        connection = etcd.connection("join-service");
        store = new NodeStateStore(connection, Clock.fixed(NOW, ZoneOffset.UTC));
    }

    @AfterAll
    void stop() throws Exception {
        if (etcd != null) {
            etcd.close();
        }
    }

    private static String ak() {
        return UUID.randomUUID().toString().replace("-", "");
    }

    private static String name() {
        return "node-" + UUID.randomUUID().toString().substring(0, 8);
    }

    /** The bindings a join writes, as far as the node state reads them. */
    private void bind(String name, String ak, String role) {
        admin.put(V1 + "bindings/node/" + name, ak);
        admin.put(V1 + "bindings/machine/" + ak + "/node", name);
        admin.put(V1 + "bindings/machine/" + ak + "/role", role);
    }

    private long counter() {
        return admin.get(V1 + "revocations/version").map(Long::parseLong).orElse(0L);
    }

    @Test
    @DisplayName("A node's endpoint and attestation record are kept at nodes/<name>/endpoint and nodes/<name>/attestation, JSON as agreed")
    void agreedKeys() throws Exception {
        String name = name();
        store.recordEndpoint(name, "10.0.0.7:7443");
        assertEquals(Optional.of("10.0.0.7:7443"), admin.get(V1 + "nodes/" + name + "/endpoint"));
        assertEquals(Optional.of("10.0.0.7:7443"), store.endpoint(name));

        store.recordAttestation(name, AttestationRecord.attested(NOW, "1.2.0"));
        assertEquals(Optional.of("{\"state\":\"attested\",\"lastSuccess\":\"2026-11-27T20:00:00Z\",\"imageVersion\":\"1.2.0\","
                + "\"failure\":null,\"missed\":0}"), admin.get(V1 + "nodes/" + name + "/attestation"));
        AttestationRecord missed = AttestationRecord.missedAfter(store.attestation(name), "no answer");
        store.recordAttestation(name, missed);
        assertEquals(Optional.of(missed), store.attestation(name));
        assertEquals(1, missed.missed());
        assertEquals(Optional.of("1.2.0"), missed.imageVersion());
    }

    @Test
    @DisplayName("A revocation writes revoked/<ak>, the node's state and the raised counter together")
    void revokeWritesAllThree() throws Exception {
        String name = name();
        String ak = ak();
        bind(name, ak, "worker");
        store.recordAttestation(name, AttestationRecord.attested(NOW.minusSeconds(30), "1.2.0"));
        long before = counter();

        Revocation revocation = store.revoke(name, ak, "PCR_MISMATCH: PCR 4 differs", "cp-0");

        assertEquals(new Revocation(name, "PCR_MISMATCH: PCR 4 differs", NOW, "cp-0"), revocation);
        assertEquals(Optional.of("{\"node\":\"" + name + "\",\"reason\":\"PCR_MISMATCH: PCR 4 differs\",\"at\":\"2026-11-27T20:00:00Z\",\"by\":\"cp-0\"}"),
                admin.get(V1 + "revoked/" + ak));
        assertEquals(before + 1, counter());
        AttestationRecord record = store.attestation(name).orElseThrow();
        assertEquals(AttestationState.REVOKED, record.state());
        assertEquals(Optional.of("PCR_MISMATCH: PCR 4 differs"), record.failure());
        assertEquals(Optional.of(NOW.minusSeconds(30)), record.lastSuccess(), "what the earlier rounds found is kept");
        assertTrue(store.isRevoked(ak));
        assertFalse(store.isRevoked(ak()));
    }

    @Test
    @DisplayName("A second revocation of the same AK keeps the first one's reason, time and author, and does not raise the counter")
    void secondRevocationKeepsTheFirst() throws Exception {
        String name = name();
        String ak = ak();
        bind(name, ak, "worker");
        Revocation first = store.revoke(name, ak, "UNREACHABLE", "cp-0");
        long after = counter();
        NodeStateStore later = new NodeStateStore(connection, Clock.fixed(NOW.plusSeconds(600), ZoneOffset.UTC));

        Revocation second = later.revoke(name, ak, Revocation.OPERATOR, Revocation.BY_OPERATOR);

        assertEquals(first, second);
        assertEquals(Optional.of(first), store.revocation(ak));
        assertEquals(after, counter());
    }

    @Test
    @DisplayName("Revocations racing on two join services each raise the counter once: none is lost")
    void racingRevocations() throws Exception {
        long before = counter();
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<Revocation>> futures = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                String name = name();
                String ak = ak();
                bind(name, ak, "worker");
                futures.add(pool.submit(() -> store.revoke(name, ak, "UNREACHABLE", "cp-0")));
            }
            for (Future<Revocation> f : futures) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
        assertEquals(before + 4, counter());
        assertEquals(counter(), store.revocations().version());
    }

    @Test
    @DisplayName("A holder whose tenure ended writes neither an attestation record nor a revocation")
    void fencedWrites() throws Exception {
        String holderKey = V1 + "reattest/holder-test-" + UUID.randomUUID();
        long lease = admin.grantLease(Duration.ofSeconds(60)).id();
        long created = ((CreateIfAbsentResult.Created) admin.createIfAbsent(holderKey, "cp-0", lease)).revision();
        Fence tenure = new Fence(holderKey, created);
        String name = name();
        String ak = ak();
        bind(name, ak, "worker");
        assertEquals(AttestationWrite.WRITTEN, store.recordAttestation(name, ak, AttestationRecord.attested(NOW, "1.2.0"), tenure, 0));
        long readAt = store.states().attestation(name).modRevision();

        admin.revokeLease(lease); // the tenure ends: its key goes with its lease
        admin.createIfAbsent(holderKey, "cp-1", 0); // the next holder's tenure: the same key, another create revision
        long before = counter();

        assertEquals(AttestationWrite.TENURE_ENDED,
                store.recordAttestation(name, ak, AttestationRecord.missedAfter(Optional.empty(), "late"), tenure, readAt));
        assertEquals(new RevocationWrite(AttestationWrite.TENURE_ENDED, Optional.empty()),
                store.revoke(name, ak, "UNREACHABLE", "cp-0", tenure, OptionalLong.of(readAt)));
        assertFalse(store.isRevoked(ak));
        assertEquals(before, counter());
        assertEquals(AttestationState.ATTESTED, store.attestation(name).orElseThrow().state());
    }

    @Test
    @DisplayName("A round's write over a record that a rejoin replaced since the round read it writes nothing and says SUPERSEDED: "
            + "neither the stale missed round nor the UNREACHABLE revocation; a revocation on the round's own evidence still lands")
    void staleRoundWritesNothing() throws Exception {
        String holderKey = V1 + "reattest/holder-test-" + UUID.randomUUID();
        long created = ((CreateIfAbsentResult.Created) admin.createIfAbsent(holderKey, "cp-0", 0)).revision();
        Fence tenure = new Fence(holderKey, created);
        String name = name();
        String ak = ak();
        bind(name, ak, "worker");
        AttestationRecord twoMissed = AttestationRecord.missedAfter(Optional.of(AttestationRecord.missedAfter(
                Optional.of(AttestationRecord.attested(NOW.minusSeconds(600), "1.1.0")), "no answer")), "no answer");
        store.recordAttestation(name, twoMissed);
        VersionedAttestation read = store.states().attestation(name); // the round reads
        assertEquals(Optional.of(twoMissed), read.record());
        assertEquals(VersionedAttestation.ABSENT, store.states().attestation(name()));

        store.recordAttested(name, ak, "1.2.0", Optional.of("10.0.0.8:7443"), Optional.empty()); // the node rejoins meanwhile
        long before = counter();

        assertEquals(AttestationWrite.SUPERSEDED, store.recordAttestation(name, ak,
                AttestationRecord.missedAfter(read.record(), "rebooting"), tenure, read.modRevision()));
        assertEquals(new RevocationWrite(AttestationWrite.SUPERSEDED, Optional.empty()),
                store.revoke(name, ak, "UNREACHABLE: missed 3 rounds in a row", "cp-0", tenure, OptionalLong.of(read.modRevision())));
        assertEquals(Optional.of(AttestationRecord.attested(NOW, "1.2.0")), store.attestation(name), "the rejoin's record stands");
        assertFalse(store.isRevoked(ak));
        assertEquals(before, counter());

        RevocationWrite onEvidence = store.revoke(name, ak, "PCR_MISMATCH: PCR 4 differs", "cp-0", tenure, OptionalLong.empty());
        assertEquals(AttestationWrite.WRITTEN, onEvidence.outcome());
        assertEquals("PCR_MISMATCH: PCR 4 differs", onEvidence.inForce().orElseThrow().reason());
        assertEquals(before + 1, counter());
    }

    @Test
    @DisplayName("A ticket's attestation writes the round's record (attested now, its image), the endpoint and the member key in one transaction")
    void ticketRecordsAttested() throws Exception {
        String name = name();
        String ak = ak();
        bind(name, ak, "worker");
        store.recordAttestation(name, AttestationRecord.missedAfter(Optional.of(AttestationRecord.attested(NOW.minusSeconds(600), "1.1.0")),
                "no answer"));
        byte[] key = new byte[32];
        key[0] = 7;

        assertEquals(AttestationWrite.WRITTEN, store.recordAttested(name, ak, "1.2.0", Optional.of("10.0.0.8:7443"), Optional.of(key)));

        assertEquals(Optional.of(AttestationRecord.attested(NOW, "1.2.0")), store.attestation(name));
        assertEquals(Optional.of("10.0.0.8:7443"), store.endpoint(name));
        assertArrayEquals(key, store.memberKey(name).orElseThrow());
    }

    @Test
    @DisplayName("No record of an attested node is written once its AK is revoked, a ticket's or a round's: the record stays revoked, nothing else is written")
    void revokedStaysRevoked() throws Exception {
        String holderKey = V1 + "reattest/holder-test-" + UUID.randomUUID();
        long created = ((CreateIfAbsentResult.Created) admin.createIfAbsent(holderKey, "cp-0", 0)).revision();
        String name = name();
        String ak = ak();
        bind(name, ak, "worker");
        store.recordAttested(name, ak, "1.1.0", Optional.of("10.0.0.9:7443"), Optional.empty());
        store.revoke(name, ak, "OPERATOR", "operator");
        AttestationRecord revoked = store.attestation(name).orElseThrow();

        assertEquals(AttestationWrite.REVOKED, store.recordAttested(name, ak, "1.2.0", Optional.of("10.66.0.1:7443"), Optional.empty()));
        assertEquals(AttestationWrite.REVOKED, store.recordAttestation(name, ak, AttestationRecord.attested(NOW, "1.2.0"),
                new Fence(holderKey, created), store.states().attestation(name).modRevision()));

        assertEquals(AttestationState.REVOKED, revoked.state());
        assertEquals(Optional.of(revoked), store.attestation(name));
        assertEquals(Optional.of("10.0.0.9:7443"), store.endpoint(name));
    }

    @Test
    @DisplayName("The operator's view lists every bound node with its role, image version, last success, state and reason; a revoked AK decides")
    void all() throws Exception {
        String attested = "aa-" + name();
        String unreachable = "ab-" + name();
        String revoked = "ac-" + name();
        String fresh = "ad-" + name();
        String akRevoked = ak();
        bind(attested, ak(), "control-plane");
        bind(unreachable, ak(), "worker");
        bind(revoked, akRevoked, "worker");
        bind(fresh, ak(), "worker");
        store.recordEndpoint(attested, "10.0.0.2:7443");
        store.recordAttestation(attested, AttestationRecord.attested(NOW.minusSeconds(12), "1.2.0"));
        store.recordAttestation(unreachable, AttestationRecord.missedAfter(Optional.of(AttestationRecord.attested(NOW.minusSeconds(90), "1.1.0")), "no answer"));
        store.recordAttestation(revoked, AttestationRecord.attested(NOW.minusSeconds(60), "1.2.0"));
        store.revoke(revoked, akRevoked, Revocation.OPERATOR, Revocation.BY_OPERATOR);

        List<NodeStatus> all = store.all().stream().filter(s -> List.of(attested, unreachable, revoked, fresh).contains(s.name())).toList();

        assertEquals(List.of(attested, unreachable, revoked, fresh), all.stream().map(NodeStatus::name).toList());
        NodeStatus a = all.get(0);
        assertEquals("control-plane", a.role());
        assertEquals(Optional.of("10.0.0.2:7443"), a.endpoint());
        assertEquals(Optional.of("1.2.0"), a.imageVersion());
        assertEquals(Optional.of(NOW.minusSeconds(12)), a.lastSuccess());
        assertEquals(AttestationState.ATTESTED, a.state());
        assertEquals("", a.reason());
        assertEquals(AttestationState.UNREACHABLE, all.get(1).state());
        assertEquals("no answer", all.get(1).reason());
        assertEquals(Optional.of("1.1.0"), all.get(1).imageVersion());
        assertEquals(AttestationState.REVOKED, all.get(2).state());
        assertEquals(Revocation.OPERATOR, all.get(2).reason());
        assertEquals(akRevoked, all.get(2).ak());
        assertEquals(AttestationState.UNREACHABLE, all.get(3).state());
        assertEquals(NodeStatus.NOT_REATTESTED_YET, all.get(3).reason());
    }

    @Test
    @DisplayName("What a round reads (every bound node with its role, endpoint, revocation, and its record with the revision the"
            + " round's writes compare) is one read at one revision, one round trip; it is the operator's view, and the"
            + " revisions are the records' own")
    void roundReadsOnce() throws Exception {
        String recorded = "ba-" + name();
        String absent = "bb-" + name();
        String akRecorded = ak();
        bind(recorded, akRecorded, "worker");
        bind(absent, ak(), "worker");
        store.recordEndpoint(recorded, "10.0.0.3:7443");
        store.recordAttestation(recorded, AttestationRecord.attested(NOW.minusSeconds(30), "1.2.0"));

        long before = connection.roundTrips();
        NodeStates states = store.states();
        assertEquals(1, connection.roundTrips() - before, "one round trip for the bindings, the records and the revocations");

        assertEquals(store.all(), states.nodes());
        VersionedAttestation read = states.attestation(recorded);
        assertEquals(Optional.of(AttestationRecord.attested(NOW.minusSeconds(30), "1.2.0")), read.record());
        assertEquals(admin.getVersioned(V1 + "nodes/" + recorded + "/attestation").orElseThrow().modRevision(), read.modRevision());
        assertEquals(VersionedAttestation.ABSENT, states.attestation(absent));
        NodeStatus status = states.nodes().stream().filter(n -> n.name().equals(recorded)).findFirst().orElseThrow();
        assertEquals(Optional.of("10.0.0.3:7443"), status.endpoint());
        assertEquals(akRecorded, status.ak());

        // The revision read is the one a round's write compares: the write lands on it, and after it the old one is stale.
        String holderKey = V1 + "reattest/holder-test-" + UUID.randomUUID();
        long created = ((CreateIfAbsentResult.Created) admin.createIfAbsent(holderKey, "cp-0", 0)).revision();
        Fence tenure = new Fence(holderKey, created);
        AttestationRecord missed = AttestationRecord.missedAfter(read.record(), "no answer");
        assertEquals(AttestationWrite.WRITTEN, store.recordAttestation(recorded, akRecorded, missed, tenure, read.modRevision()));
        assertEquals(AttestationWrite.SUPERSEDED, store.recordAttestation(recorded, akRecorded, missed, tenure, read.modRevision()));
    }
}
