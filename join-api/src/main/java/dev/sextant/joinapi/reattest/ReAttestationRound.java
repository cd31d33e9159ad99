package dev.sextant.joinapi.reattest;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * One round of re-attestation: every machine given is asked ({@link NodeCall}) and its evidence judged
 * against its binding ({@link EvidenceJudge}), with at most {@code parallel} calls in flight, so a round
 * over many nodes takes about (nodes / parallel) call times and a node that hangs holds one slot for one
 * deadline. Writes nothing: the duty records the outcomes.
 */
public final class ReAttestationRound implements AutoCloseable {
    /** Each node's outcome, in the order the machines were given, and how long the round took. */
    public record Result(Map<String, NodeOutcome> outcomes, Duration took) {
        public long count(Class<? extends NodeOutcome> kind) {
            return outcomes.values().stream().filter(kind::isInstance).count();
        }

        /** "12 nodes in 840 ms: 11 attested, 1 missed, 0 failed": the per-round figure the log carries. */
        public String summary() {
            return outcomes.size() + " nodes in " + took.toMillis() + " ms: " + count(NodeOutcome.Attested.class) + " attested, "
                    + count(NodeOutcome.Missed.class) + " missed, " + count(NodeOutcome.Failed.class) + " failed";
        }
    }

    private final Function<BoundMachine, Evidence> ask;
    private final ExecutorService calls;

    /** @param ask asks one machine ({@link NodeCall#ask}) */
    public ReAttestationRound(Function<BoundMachine, Evidence> ask, int parallel) {
        if (parallel < 1) {
            throw new IllegalArgumentException("at least one call in flight, got " + parallel);
        }
        this.ask = ask;
        this.calls = Executors.newFixedThreadPool(parallel, daemonThreads());
    }

    /**
     * Asks every machine and judges its answer.
     *
     * @param nodeBoundToAk the node an AK (hex) is bound to, if any: the bindings as the round read them
     */
    public Result run(List<BoundMachine> machines, Function<String, Optional<String>> nodeBoundToAk) throws InterruptedException {
        EvidenceJudge judge = new EvidenceJudge(nodeBoundToAk);
        long start = System.nanoTime();
        List<Future<NodeOutcome>> pending = new ArrayList<>(machines.size());
        for (BoundMachine machine : machines) {
            pending.add(calls.submit(() -> judge.judge(machine, ask.apply(machine))));
        }
        Map<String, NodeOutcome> outcomes = new LinkedHashMap<>();
        for (int i = 0; i < machines.size(); i++) {
            NodeOutcome outcome;
            try {
                outcome = pending.get(i).get();
            } catch (ExecutionException e) {
                // A bug or an etcd failure in the judge's lookup: no evidence of the node's state, so a miss.
                outcome = new NodeOutcome.Missed("the round could not judge it: " + e.getCause());
            } catch (InterruptedException e) {
                pending.forEach(f -> f.cancel(true));
                throw e;
            }
            outcomes.put(machines.get(i).name(), outcome);
        }
        return new Result(outcomes, Duration.ofNanos(System.nanoTime() - start));
    }

    @Override
    public void close() {
        calls.shutdownNow();
    }

    private static ThreadFactory daemonThreads() {
        AtomicInteger count = new AtomicInteger();
        return task -> {
            Thread t = new Thread(task, "re-attestation call " + count.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }
}
