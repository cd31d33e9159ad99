package dev.sextant.attestation.issue;

import dev.sextant.attestation.QuoteBatch;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class QuoteBatcherTest {
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
        ExecutorService pool = Executors.newCachedThreadPool();
        try {
            Future<QuoteBatcher.Batched<byte[]>> first = pool.submit(() -> batcher.quote(leaf(0)));
            awaitQuotes(tpm, 1);
            List<Future<QuoteBatcher.Batched<byte[]>>> waiting = new ArrayList<>();
            for (int i = 1; i <= 5; i++) {
                int n = i;
                waiting.add(pool.submit(() -> batcher.quote(leaf(n))));
            }
            awaitWaiting(batcher, 5);
            tpm.hold = false;
            tpm.release.countDown();

            assertArrayEquals(leaf(0), first.get(10, TimeUnit.SECONDS).quote());
            for (int i = 1; i <= 5; i++) {
                QuoteBatcher.Batched<byte[]> batched = waiting.get(i - 1).get(10, TimeUnit.SECONDS);
                assertArrayEquals(batched.quote(), QuoteBatch.rootOf(leaf(i), batched.path()), "request " + i);
            }
            assertEquals(2, batcher.quotes());
            assertEquals(2, tpm.quoted.size());
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    @DisplayName("no quote serves more than maxBatch requests; the rest take the next one")
    void respectsMaxBatch() throws Exception {
        HeldTpm tpm = new HeldTpm();
        QuoteBatcher<byte[]> batcher = new QuoteBatcher<>(2, tpm);
        ExecutorService pool = Executors.newCachedThreadPool();
        try {
            Future<?> first = pool.submit(() -> batcher.quote(leaf(0)));
            awaitQuotes(tpm, 1);
            List<Future<QuoteBatcher.Batched<byte[]>>> waiting = new ArrayList<>();
            for (int i = 1; i <= 5; i++) {
                int n = i;
                waiting.add(pool.submit(() -> batcher.quote(leaf(n))));
            }
            awaitWaiting(batcher, 5);
            tpm.hold = false;
            tpm.release.countDown();
            first.get(10, TimeUnit.SECONDS);
            for (Future<QuoteBatcher.Batched<byte[]>> f : waiting) {
                assertTrue(f.get(10, TimeUnit.SECONDS).path().size() <= 1);
            }
            assertEquals(4, batcher.quotes()); // 1 + ceil(5 / 2)
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    @DisplayName("a failed quote fails every request it would have served, and the next request is quoted afresh")
    void failureReachesTheWholeBatch() throws Exception {
        HeldTpm tpm = new HeldTpm();
        tpm.failWith = "TPM_RC_FAILURE";
        QuoteBatcher<byte[]> batcher = new QuoteBatcher<>(64, tpm);
        ExecutorService pool = Executors.newCachedThreadPool();
        try {
            Future<?> first = pool.submit(() -> batcher.quote(leaf(0)));
            awaitQuotes(tpm, 1);
            Future<?> second = pool.submit(() -> batcher.quote(leaf(1)));
            Future<?> third = pool.submit(() -> batcher.quote(leaf(2)));
            awaitWaiting(batcher, 2);
            tpm.hold = false;
            tpm.release.countDown();

            for (Future<?> f : List.of(first, second, third)) {
                java.util.concurrent.ExecutionException e = assertThrows(java.util.concurrent.ExecutionException.class,
                        () -> f.get(10, TimeUnit.SECONDS));
                assertEquals("TPM_RC_FAILURE", e.getCause().getMessage());
            }
            assertEquals(2, tpm.quoted.size());
            tpm.failWith = null;
            assertArrayEquals(leaf(3), batcher.quote(leaf(3)).quote());
        } finally {
            pool.shutdownNow();
        }
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
