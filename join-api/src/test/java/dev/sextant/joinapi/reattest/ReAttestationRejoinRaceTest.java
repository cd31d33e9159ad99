package dev.sextant.joinapi.reattest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sextant.joinapi.TestClusterStore;
import dev.sextant.joinapi.clusterstore.EtcdConnection;
import dev.sextant.joinapi.nodestate.AttestationRecord;
import dev.sextant.joinapi.nodestate.AttestationState;
import dev.sextant.joinapi.nodestate.AttestationWrite;
import dev.sextant.joinapi.nodestate.NodeStateStore;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * A node that reboots while a round asks it misses the round's call, and its rejoin ticket writes a fresh record
 * (attested, now) before the round writes its result: the round's result, computed from the record it read at its
 * start, must not overwrite the rejoin's, nor revoke the node UNREACHABLE for the missed rounds the rejoin ended.
 * Real etcd; the round's calls are a stand-in that does what the rebooting node's host does (no answer) and what its
 * rejoin does (the ticket's write) at the moment the round asks.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@DisplayName("Re-attestation against a rejoin during the round: the rejoin's record stands, the round's stale result is not written")
class ReAttestationRejoinRaceTest {
    private static final int MISSED_PERIODS = 3;
    /** Long enough that a test sees exactly one round. */
    private static final Duration PERIOD = Duration.ofSeconds(120);

    private TestClusterStore etcd;
    private EtcdConnection connection;
    private NodeStateStore store;

    @BeforeAll
    void start() {
        etcd = new TestClusterStore(1);
        connection = etcd.connection("cp-a");
        store = new NodeStateStore(connection, Clock.systemUTC());
    }

    @AfterAll
    void stop() throws Exception {
        if (etcd != null) {
            etcd.close();
        }
    }

    /** A bound node with an endpoint and the record earlier rounds left: {@code missed} rounds missed in a row. */
    private String node(int missed) throws Exception {
        String name = "w-" + UUID.randomUUID().toString().substring(0, 8);
        String ak = UUID.randomUUID().toString().replace("-", "") + UUID.randomUUID().toString().replace("-", "");
        etcd.admin().put("/sextant/v1/bindings/node/" + name, ak);
        etcd.admin().put("/sextant/v1/bindings/machine/" + ak + "/node", name);
        etcd.admin().put("/sextant/v1/bindings/machine/" + ak + "/role", "worker");
        store.recordEndpoint(name, "127.0.0.1:9");
        AttestationRecord record = AttestationRecord.attested(Instant.now().minusSeconds(600), "1.1.0");
        for (int i = 0; i < missed; i++) {
            record = AttestationRecord.missedAfter(Optional.of(record), "no answer");
        }
        store.recordAttestation(name, record);
        return name;
    }

    private String ak(String node) {
        return etcd.admin().get("/sextant/v1/bindings/node/" + node).orElseThrow();
    }

    /** Runs one round in which every node in {@code rejoining} rejoins while the round asks it; none answers. */
    private ReAttestationDuty.RoundReport roundWithRejoins(Set<String> rejoining) throws Exception {
        ReAttestationSettings settings = new ReAttestationSettings(true, PERIOD, Duration.ofSeconds(2), 4, MISSED_PERIODS, "cp-a");
        try (ReAttestationDuty duty = new ReAttestationDuty(connection::client, store,
                () -> new ReAttestationRound(machine -> {
                    if (rejoining.contains(machine.name())) {
                        try {
                            assertEquals(AttestationWrite.WRITTEN, store.recordAttested(machine.name(), machine.boundAk(), "1.2.0",
                                    Optional.of(machine.endpoint()), Optional.empty()));
                        } catch (Exception e) {
                            throw new IllegalStateException(e);
                        }
                    }
                    return new Evidence.NoAnswer("connection refused (rebooting)");
                }, settings.parallel()),
                RevocationPublisher.none(), settings, "cp-a", Clock.systemUTC()).start()) {
            Instant deadline = Instant.now().plusSeconds(30);
            while (duty.lastRound().isEmpty()) {
                if (Instant.now().isAfter(deadline)) {
                    throw new AssertionError("no round within 30 s");
                }
                Thread.sleep(50);
            }
            return duty.lastRound().get();
        }
    }

    @Test
    @DisplayName("a node at missed-periods - 1 that rejoins while the round asks it is not revoked UNREACHABLE; one that does not rejoin is")
    void rejoinAtTheBrinkIsNotRevoked() throws Exception {
        String rejoins = node(MISSED_PERIODS - 1);
        String stays = node(MISSED_PERIODS - 1);

        ReAttestationDuty.RoundReport report = roundWithRejoins(Set.of(rejoins));

        assertFalse(store.isRevoked(ak(rejoins)), "the rejoined node was revoked for the rounds its rejoin ended");
        AttestationRecord record = store.attestation(rejoins).orElseThrow();
        assertEquals(AttestationState.ATTESTED, record.state());
        assertEquals(0, record.missed());
        assertEquals(Optional.of("1.2.0"), record.imageVersion());
        assertTrue(store.revocation(ak(stays)).orElseThrow().reason().startsWith("UNREACHABLE: missed 3 rounds in a row"));
        assertEquals(1, report.revoked());
    }

    @Test
    @DisplayName("a rejoin's record written between the round's read and its write stands: the round's stale 'missed n+1' is not written")
    void rejoinRecordStands() throws Exception {
        String rejoins = node(1);
        String stays = node(1);

        roundWithRejoins(Set.of(rejoins));

        AttestationRecord record = store.attestation(rejoins).orElseThrow();
        assertEquals(AttestationState.ATTESTED, record.state(), "the rejoin's record was overwritten: " + record);
        assertEquals(0, record.missed());
        assertEquals(Optional.of("1.2.0"), record.imageVersion());
        AttestationRecord missed = store.attestation(stays).orElseThrow();
        assertEquals(AttestationState.UNREACHABLE, missed.state());
        assertEquals(2, missed.missed());
    }
}
