package dev.sextant.joinapi.revokednode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.sextant.joinapi.TestJoinService;
import dev.sextant.joinapi.nodestate.NodeStateStore;
import dev.sextant.joinapi.nodestate.Revocation;
import dev.sextant.joinapi.reattest.ReAttestationStartup;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.slf4j.LoggerFactory;

/** A join service in node-local mode (no Kubernetes), holding the re-attestation duty with a 1 s period, over real etcd. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@DisplayName("Node-local mode: a revocation is etcd's and discovery's only")
class NodeLocalRevocationTest {
    @AutoClose
    private final TestJoinService service = new TestJoinService("cp-0");

    @BeforeAll
    void start() {
        service.withoutKubernetes().reAttesting("cp-0", Duration.ofSeconds(1), Duration.ofSeconds(2)).start();
    }

    @Test
    @DisplayName("a revocation touches no Node (no Kubernetes client, no RevokedNodeTaint) and the rounds after it say nothing about Kubernetes")
    void revocationTouchesNoNode() throws Exception {
        assertTrue(service.context().findBean(CoreV1Api.class).isEmpty(), "no Kubernetes client in node-local mode");
        assertTrue(service.context().findBean(RevokedNodeTaint.class).isEmpty());
        String ak = "000b" + "44".repeat(32);
        service.admin().put("/sextant/v1/bindings/node/w-local", ak);
        service.admin().put("/sextant/v1/bindings/machine/" + ak + "/node", "w-local");
        ListAppender<ILoggingEvent> captured = new ListAppender<>();
        captured.start();
        Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        root.addAppender(captured);
        try {
            service.bean(NodeStateStore.class).revoke("w-local", ak, Revocation.OPERATOR, Revocation.BY_OPERATOR);
            Instant deadline = Instant.now().plusSeconds(20);
            while (rounds(captured) < 3 && Instant.now().isBefore(deadline)) {
                Thread.sleep(100);
            }
        } finally {
            root.detachAppender(captured);
        }
        assertTrue(rounds(captured) >= 3, "three rounds ran with the revoked node");
        assertTrue(service.bean(ReAttestationStartup.class).duty().isHolder());
        List<String> aboutKubernetes = events(captured).stream().map(ILoggingEvent::getFormattedMessage)
                .filter(m -> m.contains("Kubernetes") || m.contains("cordon") || m.contains("Node ")).toList();
        assertEquals(List.of(), aboutKubernetes, "nothing said about Kubernetes");
    }

    private static long rounds(ListAppender<ILoggingEvent> captured) {
        return events(captured).stream().filter(e -> e.getFormattedMessage().startsWith("re-attestation round:")).count();
    }

    /** A copy: the appender adds under its own lock (AppenderBase.doAppend) from the duty's thread. */
    private static List<ILoggingEvent> events(ListAppender<ILoggingEvent> captured) {
        synchronized (captured) {
            return List.copyOf(captured.list);
        }
    }
}
