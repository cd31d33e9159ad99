package dev.sextant.joinapi.binding;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.sextant.joinapi.TestCaller;
import dev.sextant.joinapi.TestJoinService;
import dev.sextant.joinapi.nodestate.AttestationRecord;
import dev.sextant.joinapi.nodestate.AttestationState;
import dev.sextant.joinapi.nodestate.NodeStateStore;
import dev.sextant.joinapi.nodestate.NodeStatus;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Optional;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The init node asks for no ticket before its first reboot, and {@code sextant init} verified it over aTLS
 * just before its join service first started: the join service as it starts at init, over real etcd,
 * records it attested then, so {@code cluster status} does not show it "not re-attested yet" until the
 * first round; and only then, never over what a round or a ticket wrote since.
 */
@DisplayName("The init node is recorded attested at init, when its bindings are written, and only then")
class InitNodeAttestedAtInitTest {
    private static final String NODE = "init-attested-cp-0";

    @AutoClose
    private final TestJoinService service = new TestJoinService("join-init-attested")
            .initNode(TestCaller.ak("init-attested"), NODE);

    private NodeStatus status() throws Exception {
        return service.bean(NodeStateStore.class).all().stream().filter(n -> n.name().equals(NODE)).findFirst().orElseThrow();
    }

    @Test
    @DisplayName("at the join service's first start the init node is attested, last attested at that start, its image not yet"
            + " named (the first round names it), no reason, no missed round")
    void attestedFromInit() throws Exception {
        Instant before = Instant.now().truncatedTo(ChronoUnit.MILLIS);
        service.start();

        NodeStatus init = status();
        assertEquals(AttestationState.ATTESTED, init.state(), init.toString());
        assertEquals("", init.reason());
        assertEquals(0, init.missed());
        assertEquals(Optional.empty(), init.imageVersion());
        Instant at = init.lastSuccess().orElseThrow();
        assertFalse(at.isBefore(before) || at.isAfter(Instant.now()), at + " is the start's time");
    }

    @Test
    @DisplayName("a restart (the bindings are there already) writes nothing: what a round wrote since init stays")
    void restartWritesNothing() throws Exception {
        service.start();
        NodeStateStore store = service.bean(NodeStateStore.class);
        AttestationRecord missed = AttestationRecord.missedAfter(store.attestation(NODE), "no answer");
        store.recordAttestation(NODE, missed);
        service.stop();
        service.start();
        assertEquals(Optional.of(missed), service.bean(NodeStateStore.class).attestation(NODE));
        assertEquals(AttestationState.UNREACHABLE, status().state());
    }
}
