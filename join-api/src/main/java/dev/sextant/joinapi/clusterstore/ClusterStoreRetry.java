package dev.sextant.joinapi.clusterstore;

import dev.sextant.grpcsupport.Refusal;
import dev.sextant.joinapi.refusal.JoinRefusal;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.DoubleSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a step again while the cluster store does not answer ({@link JoinRefusal#CLUSTER_STORE_UNAVAILABLE}),
 * with exponential back-off and full jitter, until it succeeds or a time budget is spent; any other
 * refusal (a binding held by another machine) ends it at once, since asking again cannot change it.
 * The back-off is housekeeping's {@code retry.Backoff} rule (wait uniform[0, min(cap, first * 2^n))),
 * written again here because join-api sits below housekeeping in the module table and must not import it.
 *
 * <p>Each retry is logged at WARN with the refusal's message and etcd's own words (the operation, each
 * endpoint and its status: no key and no value, see {@code EtcdException}), never with a stack trace.
 */
public final class ClusterStoreRetry {
    private static final Logger LOG = LoggerFactory.getLogger(ClusterStoreRetry.class);

    /** Waits between attempts; tests record the waits, or spend them. */
    @FunctionalInterface
    public interface Sleeper {
        void sleep(Duration duration) throws InterruptedException;
    }

    /** One attempt of the step. */
    @FunctionalInterface
    public interface Step<T> {
        T run() throws Refusal;
    }

    /**
     * @param first  the first back-off ceiling, doubled after each attempt
     * @param cap    the largest back-off ceiling
     * @param budget no attempt starts once this much time has passed since the first
     */
    public record Policy(Duration first, Duration cap, Duration budget) {
        public Policy {
            if (first.isNegative() || first.isZero() || cap.compareTo(first) < 0 || budget.isNegative()) {
                throw new IllegalArgumentException("a retry policy needs 0 < first <= cap and a budget >= 0, got "
                        + first + ", " + cap + ", " + budget);
            }
        }

        /** The back-off ceiling before attempt {@code n + 1} (0-based): first * 2^n, at most cap. */
        Duration ceiling(int attempt) {
            long millis = first.toMillis() << Math.min(attempt, 30);
            return millis <= 0 || millis > cap.toMillis() ? cap : Duration.ofMillis(millis);
        }
    }

    /**
     * The init node's claim at start-up: the first etcd call of a cold JVM (class loading, the first TLS
     * handshake) can outlast one call's deadline, most of all under TCG. One minute: inside the window the
     * kubelet gives a join pod before its liveness probe restarts it (30 s delay, three failures 10 s apart),
     * so the service's own failure is what the log shows; without Kubernetes systemd starts it again.
     */
    public static final Policy AT_START = new Policy(Duration.ofMillis(250), Duration.ofSeconds(5), Duration.ofSeconds(60));

    private final Policy policy;
    private final Sleeper sleeper;
    private final Clock clock;
    private final DoubleSupplier random;

    public ClusterStoreRetry(Policy policy, Sleeper sleeper, Clock clock, DoubleSupplier random) {
        this.policy = policy;
        this.sleeper = sleeper;
        this.clock = clock;
        this.random = random;
    }

    /** {@link #AT_START}, spending its waits, on the system clock. */
    public static ClusterStoreRetry atStart() {
        return new ClusterStoreRetry(AT_START, d -> Thread.sleep(d.toMillis()), Clock.systemUTC(),
                () -> ThreadLocalRandom.current().nextDouble());
    }

    public Policy policy() {
        return policy;
    }

    /**
     * {@code step}'s result, after as many attempts as the budget allows while etcd does not answer.
     *
     * @param what names the step in the log ("the init node's claim")
     * @throws Refusal the step's own refusal at once, or the last UNAVAILABLE once the budget is spent
     *                 (its message then says how many attempts were made over how long)
     */
    public <T> T run(String what, Step<T> step) throws Refusal, InterruptedException {
        Instant start = clock.instant();
        for (int attempt = 1; ; attempt++) {
            try {
                return step.run();
            } catch (Refusal r) {
                if (r.reason() != JoinRefusal.CLUSTER_STORE_UNAVAILABLE) {
                    throw r;
                }
                Duration spent = Duration.between(start, clock.instant());
                Duration wait = Duration.ofMillis((long) (policy.ceiling(attempt - 1).toMillis() * random.getAsDouble()));
                if (spent.plus(wait).compareTo(policy.budget()) >= 0) {
                    throw new Refusal(JoinRefusal.CLUSTER_STORE_UNAVAILABLE, r.getMessage() + " (" + attempt
                            + (attempt == 1 ? " attempt" : " attempts") + " in " + spent.toMillis() + " ms, retried for at most "
                            + policy.budget().toSeconds() + " s)", r.getCause() == null ? r : r.getCause());
                }
                LOG.warn("{}: attempt {} failed after {} ms: {}{}; trying again in {} ms", what, attempt, spent.toMillis(),
                        r.getMessage(), r.getCause() == null ? "" : " [" + r.getCause().getMessage() + "]", wait.toMillis());
                sleeper.sleep(wait);
            }
        }
    }
}
