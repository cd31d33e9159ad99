package dev.sextant.attestation.issue;

import dev.sextant.attestation.QuoteBatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class QuoteBatcherTest {
    private final ExecutorService pool = Executors.newCachedThreadPool();

    @AfterEach
    void stopThreads() {
        pool.shutdownNow();
    }

    /** A TPM double that records what it was asked to quote and can be held busy. */
    private static final class HeldTpm implements QuoteBatcher.Quoter<byte[]> {
        final List<byte[]> quoted = new CopyOnWriteArrayList<>();
        final CountDownLatch release = new CountDownLatch(1);
        volatile boolean hold = true;
        volatile String failWith;

        @Override
        public byte[] quote(byte[] qualifyingData) throws AttestationException {
            quoted.add(qualifyingData);
            if (hold) {
                try {
                    release.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    throw new AttestationException("interrupted");
                }
            }
            if (failWith != null) {
                throw new AttestationException(failWith);
            }
            return qualifyingData;
        }
    }

    private static byte[] leaf(int i) {
        byte[] leaf = new byte[32];
        leaf[0] = (byte) i;
        return leaf;
    }

    @Test
    @DisplayName("a request that finds the TPM idle is quoted at once over its own leaf")
    void loneRequest() throws Exception {
        HeldTpm tpm = new HeldTpm();
        tpm.hold = false;
        QuoteBatcher<byte[]> batcher = new QuoteBatcher<>(64, tpm);

        QuoteBatcher.Batched<byte[]> batched = batcher.quote(leaf(1));

        assertArrayEquals(leaf(1), batched.quote());
        assertTrue(batched.path().isEmpty());
        assertEquals(1, batcher.quotes());
    }

    @Test
    @DisplayName("requests that arrive while the TPM quotes share the next quote, each with the path to its own leaf")
    void waitingRequestsShareOneQuote() throws Exception {
        HeldTpm tpm = new HeldTpm();
        QuoteBatcher<byte[]> batcher = new QuoteBatcher<>(64, tpm);

        List<Future<QuoteBatcher.Batched<byte[]>>> requests = oneQuotingAndQueuedBehind(batcher, tpm, 5);

        assertArrayEquals(leaf(0), requests.get(0).get(10, TimeUnit.SECONDS).quote());
        for (int i = 1; i <= 5; i++) {
            QuoteBatcher.Batched<byte[]> batched = requests.get(i).get(10, TimeUnit.SECONDS);
            assertArrayEquals(batched.quote(), QuoteBatch.rootOf(leaf(i), batched.path()), "request " + i);
        }
        assertEquals(2, batcher.quotes());
        assertEquals(2, tpm.quoted.size());
    }

    @Test
    @DisplayName("no quote serves more than maxBatch requests; the rest take the next one")
    void respectsMaxBatch() throws Exception {
        HeldTpm tpm = new HeldTpm();
        QuoteBatcher<byte[]> batcher = new QuoteBatcher<>(2, tpm);

        for (Future<QuoteBatcher.Batched<byte[]>> f : oneQuotingAndQueuedBehind(batcher, tpm, 5)) {
            assertTrue(f.get(10, TimeUnit.SECONDS).path().size() <= 1);
        }
        assertEquals(4, batcher.quotes()); // 1 + ceil(5 / 2)
    }

    @Test
    @DisplayName("a failed quote fails every request it would have served, and the next request is quoted afresh")
    void failureReachesTheWholeBatch() throws Exception {
        HeldTpm tpm = new HeldTpm();
        tpm.failWith = "TPM_RC_FAILURE";
        QuoteBatcher<byte[]> batcher = new QuoteBatcher<>(64, tpm);

        for (Future<QuoteBatcher.Batched<byte[]>> f : oneQuotingAndQueuedBehind(batcher, tpm, 2)) {
            ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(10, TimeUnit.SECONDS));
            assertEquals("TPM_RC_FAILURE", e.getCause().getMessage());
        }
        assertEquals(2, tpm.quoted.size());
        tpm.failWith = null;
        assertArrayEquals(leaf(3), batcher.quote(leaf(3)).quote());
    }

    /**
     * Request 0 finds the TPM idle and is held inside its quote; requests 1..{@code queued} arrive
     * meanwhile and wait; then the TPM is let go. Returns the requests in that order.
     */
    private List<Future<QuoteBatcher.Batched<byte[]>>> oneQuotingAndQueuedBehind(QuoteBatcher<byte[]> batcher,
            HeldTpm tpm, int queued) throws InterruptedException {
        List<Future<QuoteBatcher.Batched<byte[]>>> requests = new ArrayList<>();
        requests.add(pool.submit(() -> batcher.quote(leaf(0))));
        awaitQuotes(tpm, 1);
        for (int i = 1; i <= queued; i++) {
            int n = i;
            requests.add(pool.submit(() -> batcher.quote(leaf(n))));
        }
        awaitWaiting(batcher, queued);
        tpm.hold = false;
        tpm.release.countDown();
        return requests;
    }

    private static void awaitWaiting(QuoteBatcher<?> batcher, int n) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (batcher.waiting() < n && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertEquals(n, batcher.waiting());
    }

    private static void awaitQuotes(HeldTpm tpm, int n) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (tpm.quoted.size() < n && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertEquals(n, tpm.quoted.size());
    }
}
