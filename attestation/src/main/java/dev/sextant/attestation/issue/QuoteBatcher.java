package dev.sextant.attestation.issue;

import dev.sextant.attestation.QuoteBatch;
import dev.sextant.proto.v1.BatchStep;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;

/**
 * Lets concurrent requests share one TPM quote (a group commit). A TPM makes one quote at a time,
 * in tens of milliseconds on real hardware, so without this every aTLS handshake waited for its own
 * quote behind all the others. Here a request that arrives while a quote is being made waits; when
 * that quote is done, one waiting thread quotes once over the {@link QuoteBatch} root of everyone
 * then waiting (at most {@code maxBatch}, oldest first) and each gets that quote with the path to
 * its own leaf. Nobody waits for a batch to fill: a request that finds the TPM idle is quoted at
 * once, over its own leaf.
 *
 * @param <Q> what one quote yields (the TPM's signed structures and the PCRs read with them)
 */
public final class QuoteBatcher<Q> {
    /** Quotes once over the given qualifying data. */
    @FunctionalInterface
    public interface Quoter<Q> {
        Q quote(byte[] qualifyingData) throws AttestationException;
    }

    /** One request's share of a quote: the quote, and the path from its leaf to the quoted root. */
    public record Batched<Q>(Q quote, List<BatchStep> path) {}

    private static final class Request<Q> {
        final byte[] leaf;
        Batched<Q> result;        // written by the thread that quoted, read after the lock hand-over
        AttestationException failure;
        boolean done;

        Request(byte[] leaf) { this.leaf = leaf; }
    }

    private final int maxBatch;
    private final Quoter<Q> quoter;
    private final Object lock = new Object();
    private final ArrayDeque<Request<Q>> waiting = new ArrayDeque<>();
    private final LongAdder quotes = new LongAdder();
    private boolean quoting;

    public QuoteBatcher(int maxBatch, Quoter<Q> quoter) {
        if (maxBatch < 1 || maxBatch > 1 << QuoteBatch.MAX_DEPTH) {
            throw new IllegalArgumentException("maxBatch must be 1.." + (1 << QuoteBatch.MAX_DEPTH) + ", not " + maxBatch);
        }
        this.maxBatch = maxBatch;
        this.quoter = quoter;
    }

    /** The quote covering {@code leaf} (a {@link dev.sextant.attestation.Qualification}) and its path. */
    public Batched<Q> quote(byte[] leaf) throws AttestationException {
        Request<Q> mine = new Request<>(leaf);
        boolean interrupted = false;
        try {
            synchronized (lock) {
                waiting.add(mine);
            }
            while (true) {
                List<Request<Q>> batch;
                synchronized (lock) {
                    while (quoting && !mine.done) {
                        try {
                            lock.wait();
                        } catch (InterruptedException e) {
                            if (waiting.remove(mine)) {
                                Thread.currentThread().interrupt();
                                throw new AttestationException("interrupted while waiting for the TPM");
                            }
                            interrupted = true; // already in a quote under way: take its result
                        }
                    }
                    if (mine.done) {
                        if (mine.result != null) {
                            return mine.result;
                        }
                        AttestationException failure = mine.failure;
                        throw failure == null ? new AttestationException("the quote for this request was not made")
                                : new AttestationException(failure.getMessage(), failure);
                    }
                    quoting = true;
                    batch = new ArrayList<>(Math.min(maxBatch, waiting.size()));
                    while (batch.size() < maxBatch && !waiting.isEmpty()) {
                        batch.add(waiting.poll());
                    }
                }
                try {
                    quoteFor(batch);
                } finally {
                    synchronized (lock) { // the hand-over that makes the results visible to their waiters
                        batch.forEach(r -> r.done = true);
                        quoting = false;
                        lock.notifyAll();
                    }
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Requests waiting for the next quote. */
    int waiting() {
        synchronized (lock) {
            return waiting.size();
        }
    }

    /** Quotes made so far; requests / quotes is the mean batch size. */
    public long quotes() { return quotes.sum(); }

    private void quoteFor(List<Request<Q>> batch) {
        QuoteBatch tree = QuoteBatch.of(batch.stream().map(r -> r.leaf).toList());
        try {
            Q quote = quoter.quote(tree.root());
            quotes.increment();
            for (int i = 0; i < batch.size(); i++) {
                batch.get(i).result = new Batched<>(quote, tree.path(i));
            }
        } catch (AttestationException e) {
            batch.forEach(r -> r.failure = e);
        } catch (RuntimeException e) {
            AttestationException failure = new AttestationException("quoting failed: " + e, e);
            batch.forEach(r -> r.failure = failure);
        }
    }
}
