package dev.sextant.atls;

import dev.sextant.attestation.verify.AttestedState;
import dev.sextant.tpmmanufacturer.testkit.Swtpm;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.netty.handler.ssl.SslContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

@DisplayName("aTLS with a real swtpm-backed TpmAttester")
class AtlsSwtpmTest {
    private static SwtpmEvidence swtpm;

    @BeforeAll
    static void startSwtpm() throws Exception {
        Swtpm.assumeAvailable();
        swtpm = new SwtpmEvidence();
    }

    @AfterAll
    static void stopSwtpm() throws Exception {
        if (swtpm != null) {
            swtpm.close();
        }
    }

    @Test
    @DisplayName("mutual: the swtpm server's quote and the client's evidence are both verified, and both AK names reach the applications")
    void swtpmServerMutual() throws Exception {
        SoftwareEvidence client = new SoftwareEvidence("client");
        SslContext mutualServer = AtlsContexts.server(OwnAttestation.by(swtpm.attester), ClientVerification.by(client.verifier));
        try (GrpcPair pair = new GrpcPair(mutualServer, true)) {
            GrpcPair.Reply reply = pair.call(
                    AtlsContexts.client(OwnAttestation.by(client.attester), ServerVerification.by(swtpm.verifier)));

            assertArrayEquals(client.node.akName(), reply.clientAkSeenByService());
            assertArrayEquals(swtpm.akName(), reply.serverStateSeenByClient().map(AttestedState::akName).orElseThrow());
        }
    }

    @Test
    @DisplayName("handshakes that reach the server while its TPM is busy share the next quote, and every client verifies the server")
    void waitingHandshakesShareOneQuote() throws Exception {
        int clients = 4;
        ExecutorService callers = Executors.newFixedThreadPool(clients);
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Thread busy = new Thread(() -> { // another user of the TPM, mid-command
            try {
                swtpm.tpm.client().exclusive(() -> {
                    held.countDown();
                    return release.await(30, TimeUnit.SECONDS);
                });
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        SslContext serverAttested = AtlsContexts.server(OwnAttestation.by(swtpm.attester), ClientVerification.anonymous());
        try (GrpcPair pair = new GrpcPair(serverAttested, false, HandshakeLimits.defaults())) {
            long quotesBefore = swtpm.tpmAttester.quotes();
            busy.start();
            held.await();
            List<Future<GrpcPair.Reply>> calls = new ArrayList<>();
            for (int i = 0; i < clients; i++) {
                calls.add(callers.submit(
                        () -> pair.call(AtlsContexts.client(OwnAttestation.none(), ServerVerification.by(swtpm.verifier)))));
            }
            awaitHandshakesWaitingForTheTpm(clients);
            release.countDown();

            for (Future<GrpcPair.Reply> call : calls) {
                GrpcPair.Reply reply = call.get(30, TimeUnit.SECONDS);
                assertArrayEquals(swtpm.akName(), reply.serverStateSeenByClient().map(AttestedState::akName).orElseThrow());
            }
            // The first handshake was quoted alone once the TPM was free, the three behind it together.
            assertEquals(2, swtpm.tpmAttester.quotes() - quotesBefore);
        } finally {
            release.countDown();
            callers.shutdownNow();
        }
    }

    /** Until {@code n} handshake workers wait in the attester: one for the TPM, the others for its next quote. */
    private static void awaitHandshakesWaitingForTheTpm(int n) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        long waiting = 0;
        while (System.nanoTime() < deadline) {
            waiting = Thread.getAllStackTraces().entrySet().stream()
                    .filter(e -> e.getKey().getName().startsWith("atls-handshake-")
                            && e.getKey().getState() == Thread.State.WAITING
                            && Arrays.stream(e.getValue()).anyMatch(f -> f.getClassName().endsWith("QuoteBatcher")))
                    .count();
            if (waiting == n) {
                return;
            }
            Thread.sleep(5);
        }
        assertEquals(n, waiting, "handshake workers waiting for the TPM");
    }

    @Test
    @DisplayName("a client that trusts another EK CA refuses the swtpm server in the handshake")
    void untrustedEkCa() throws Exception {
        SoftwareEvidence other = new SoftwareEvidence("other-ca");
        SslContext serverAttested = AtlsContexts.server(OwnAttestation.by(swtpm.attester), ClientVerification.anonymous());
        try (GrpcPair pair = new GrpcPair(serverAttested, false)) {
            StatusRuntimeException e = assertThrows(StatusRuntimeException.class,
                    () -> pair.call(AtlsContexts.client(OwnAttestation.none(), ServerVerification.by(other.verifier))));

            assertEquals(Status.Code.UNAVAILABLE, e.getStatus().getCode());
            assertEquals(0, pair.service.invocations.get());
        }
    }
}
