package dev.sextant.joinapi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sextant.joinapi.token.BootstrapTokens;
import dev.sextant.serviceconfig.JoinServiceConfig;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import io.micronaut.test.support.TestPropertyProvider;
import jakarta.inject.Inject;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Over HTTP/1.1 every concurrent Kubernetes API call (a bootstrap token's Secret, one per ticket) needs
 * a connection of its own. The join
 * service keeps those connections for the next calls instead of closing all but okhttp's default
 * five after every burst: with that default, 256 joiners made it open about 0.7 connections per
 * ticket, a TLS handshake each against a real API server.
 */
@MicronautTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@DisplayName("The join service's Kubernetes connections")
class KubernetesConnectionsTest implements TestPropertyProvider {
    private static final int CONCURRENT = 32;
    private static final int ROUNDS = 8;

    private final TestCluster cluster = new TestCluster();
    private final HashMapKubeApi api;

    @Inject
    BootstrapTokens tokens;

    KubernetesConnectionsTest() throws IOException {
        api = new HashMapKubeApi();
    }

    @Override
    public Map<String, String> getProperties() {
        Map<String, String> p = cluster.properties();
        p.put(JoinServiceConfig.KUBERNETES_BASE_PATH, api.url());
        return p;
    }

    @AfterAll
    void stop() throws Exception {
        api.close();
        cluster.close();
    }

    @Test
    @DisplayName("rounds of concurrent calls reuse the connections the first round opened")
    void concurrentCallsKeepTheirConnections() throws Exception {
        CyclicBarrier together = new CyclicBarrier(CONCURRENT);
        ExecutorService callers = Executors.newFixedThreadPool(CONCURRENT);
        try {
            api.countConnectionsFromNow();
            List<Future<?>> calls = new ArrayList<>();
            for (int c = 0; c < CONCURRENT; c++) {
                int caller = c;
                calls.add(callers.submit(() -> {
                    for (int round = 0; round < ROUNDS; round++) {
                        together.await();
                        assertEquals(6, tokens.create("node-" + caller).id().length());
                    }
                    return null;
                }));
            }
            for (Future<?> call : calls) {
                call.get();
            }
        } finally {
            callers.shutdownNow();
        }
        int connections = api.connectionsCounted();
        assertTrue(connections <= CONCURRENT, CONCURRENT * ROUNDS + " calls, " + CONCURRENT
                + " at a time, used " + connections + " connections");
    }
}
