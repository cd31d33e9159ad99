package dev.sextant.joinapi.clusterstore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sextant.grpcsupport.Refusal;
import dev.sextant.joinapi.refusal.JoinRefusal;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("Retrying a cluster-store step: full-jitter back-off while etcd does not answer, within a budget; other refusals at once")
class ClusterStoreRetryTest {
    /** A clock that moves only when the retry sleeps: the waits are recorded, not spent. */
    private static final class SleepingClock extends Clock {
        private Instant now = Instant.parse("2026-01-01T00:00:00Z");
        final List<Duration> waits = new ArrayList<>();

        void sleep(Duration d) {
            waits.add(d);
            now = now.plus(d);
        }

        @Override
        public ZoneOffset getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now;
        }
    }

    private final SleepingClock clock = new SleepingClock();

    private ClusterStoreRetry retry(double random) {
        return new ClusterStoreRetry(new ClusterStoreRetry.Policy(Duration.ofMillis(250), Duration.ofSeconds(5), Duration.ofSeconds(60)),
                clock::sleep, clock, () -> random);
    }

    private static Refusal unavailable() {
        return new Refusal(JoinRefusal.CLUSTER_STORE_UNAVAILABLE, "the cluster store (etcd) did not answer (DEADLINE_EXCEEDED); retry later");
    }

    @Test
    @DisplayName("etcd answers at the fourth attempt: three waits, each below a ceiling that doubles from 250 ms, and the step's result")
    void answersLater() throws Exception {
        AtomicInteger attempts = new AtomicInteger();
        String result = retry(0.99).run("a step", () -> {
            if (attempts.incrementAndGet() < 4) {
                throw unavailable();
            }
            return "bound";
        });
        assertEquals("bound", result);
        assertEquals(3, clock.waits.size());
        List<Long> ceilings = List.of(250L, 500L, 1000L);
        for (int i = 0; i < 3; i++) {
            long wait = clock.waits.get(i).toMillis();
            assertTrue(wait < ceilings.get(i) && wait >= ceilings.get(i) * 9 / 10, "wait " + i + ": " + wait);
        }
    }

    @Test
    @DisplayName("etcd never answers: attempts stop once the 60 s budget would be passed, the waits capped at 5 s, and the last refusal says how many attempts over how long")
    void budgetSpent() {
        AtomicInteger attempts = new AtomicInteger();
        Refusal r = assertThrows(Refusal.class, () -> retry(0.99).run("a step", () -> {
            attempts.incrementAndGet();
            throw unavailable();
        }));
        assertSame(JoinRefusal.CLUSTER_STORE_UNAVAILABLE, r.reason());
        Duration spent = clock.waits.stream().reduce(Duration.ZERO, Duration::plus);
        assertTrue(spent.compareTo(Duration.ofSeconds(60)) < 0, "within the budget: " + spent);
        assertTrue(spent.compareTo(Duration.ofSeconds(50)) > 0, "most of the budget used: " + spent);
        assertTrue(clock.waits.stream().allMatch(w -> w.compareTo(Duration.ofSeconds(5)) < 0), clock.waits.toString());
        assertEquals(clock.waits.size() + 1, attempts.get());
        assertTrue(r.getMessage().startsWith("the cluster store (etcd) did not answer (DEADLINE_EXCEEDED); retry later ("
                + attempts.get() + " attempts in "), r.getMessage());
        assertTrue(r.getMessage().endsWith("retried for at most 60 s)"), r.getMessage());
    }

    @Test
    @DisplayName("any other refusal (a disk held by another machine) ends the step at once: no wait")
    void otherRefusalsAtOnce() {
        Refusal conflict = new Refusal(JoinRefusal.DISK_BOUND_ELSEWHERE, "disk d belongs to another machine");
        Refusal r = assertThrows(Refusal.class, () -> retry(0.5).run("a step", () -> {
            throw conflict;
        }));
        assertSame(conflict, r);
        assertEquals(List.of(), clock.waits);
    }
}
