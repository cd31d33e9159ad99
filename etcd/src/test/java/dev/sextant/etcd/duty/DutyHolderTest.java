package dev.sextant.etcd.duty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.sextant.etcd.client.EtcdClient;
import dev.sextant.etcd.client.EtcdClientConfig;
import dev.sextant.etcd.testkit.BlackHoleProxy;
import dev.sextant.etcd.testkit.EtcdInstalled;
import dev.sextant.etcd.testkit.LoopbackPorts;
import dev.sextant.etcd.testkit.TestEtcdCluster;
import dev.sextant.etcd.testkit.Tmpfs;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three candidates for one duty on a real three-member etcd cluster, each with its own client, as three
 * join services would be. Every test runs a sampler that asks each candidate's {@code isHolder()} every
 * 2 ms and fails the test if two ever say yes at once; the tests where every holder's thread runs also
 * check the listeners' timeline (each onTaken after the previous holder's onLost). Hand-over times are
 * printed, and asserted only against the contract's bounds.
 */
@DisplayName("DutyHolder: one holder at a time among three candidates on a three-member etcd cluster")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DutyHolderTest {
    private static final Duration TERM = Duration.ofSeconds(3);
    private static final Duration BEAT = TERM.dividedBy(3);
    /** etcd checks for expired leases every 500 ms and revokes them through raft; the watch and two round trips on top. */
    private static final Duration ETCD_EXPIRY_MARGIN = Duration.ofSeconds(1);
    private static final List<String> MEMBERS = List.of("cp-0", "cp-1", "cp-2");

    private TestEtcdCluster cluster;
    private EtcdClient admin;
    private final LoopbackPorts ports = new LoopbackPorts();
    private final List<Candidate> candidates = new CopyOnWriteArrayList<>();
    private final List<Event> events = new CopyOnWriteArrayList<>();
    private final List<String> overlaps = new CopyOnWriteArrayList<>();
    private Thread sampler;
    private String key;

    enum Kind { TAKEN, LOST }

    record Event(long nanos, String who, Kind kind, String reason) {
        @Override
        public String toString() {
            return String.format("%6d ms %s %s%s", nanos / 1_000_000 % 1_000_000, who, kind, reason == null ? "" : " (" + reason + ")");
        }
    }

    /** One join service's part: its client and its holder. */
    record Candidate(String name, EtcdClient client, DutyHolder holder) {
    }

    @BeforeAll
    void start(@TempDir(factory = Tmpfs.class) Path dir) throws Exception {
        EtcdInstalled.require();
        byte[] seed = new byte[32];
        new SecureRandom().nextBytes(seed);
        cluster = new TestEtcdCluster(dir, seed);
        cluster.startAll(MEMBERS.toArray(String[]::new));
        admin = cluster.client("admin", "cp-0", "cp-1", "cp-2");
    }

    @AfterAll
    void stop() throws Exception {
        if (cluster != null) {
            cluster.close();
        }
    }

    @BeforeEach
    void sample(TestInfo test) {
        key = "/sextant/v1/test/" + test.getTestMethod().orElseThrow().getName() + "/holder";
        sampler = new Thread(() -> {
            while (!Thread.currentThread().isInterrupted()) {
                List<String> holding = candidates.stream().filter(c -> c.holder().isHolder()).map(Candidate::name).toList();
                if (holding.size() > 1) {
                    overlaps.add(System.nanoTime() / 1_000_000 % 1_000_000 + " ms: " + holding);
                }
                try {
                    Thread.sleep(2);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "holder sampler");
        sampler.setDaemon(true);
        sampler.start();
    }

    @AfterEach
    void noTwoHoldersAtOnce() throws Exception {
        sampler.interrupt();
        sampler.join();
        candidates.forEach(c -> c.holder().close());
        candidates.clear();
        try {
            assertEquals(List.of(), overlaps, "two candidates said isHolder() at once; timeline:\n" + timeline());
        } finally {
            overlaps.clear();
            events.clear();
        }
    }

    @Test
    @DisplayName("of three candidates started at once, exactly one holds the duty, stays holder while it renews, and the key names it")
    void exactlyOneHolds() throws Exception {
        startCandidates("cp-0", "cp-1", "cp-2");
        Candidate holder = awaitHolder(c -> true, TERM.plus(BEAT));
        Thread.sleep(TERM.multipliedBy(2).toMillis()); // two terms: six renewals

        assertEquals(List.of(holder.name()), holders());
        assertEquals(Optional.of(holder.name()), admin.get(key));
        assertEquals(1, events.stream().filter(e -> e.kind() == Kind.TAKEN).count(), timeline());
        assertEquals(0, events.stream().filter(e -> e.kind() == Kind.LOST).count(), timeline());
        long leaseId = holder.holder().holding().orElseThrow().leaseId();
        assertTrue(admin.leaseTimeToLive(leaseId).orElseThrow() >= 1, "the holder's lease is alive in etcd");
        assertEventsNeverOverlap();
    }

    @Test
    @DisplayName("closing the holder resigns: its lease is revoked and another candidate, woken by its watch, holds within one beat, not after the term")
    void resignationMovesTheDutyAtOnce() throws Exception {
        startCandidates("cp-0", "cp-1", "cp-2");
        Candidate first = awaitHolder(c -> true, TERM.plus(BEAT));
        long leaseId = first.holder().holding().orElseThrow().leaseId();

        long closed = System.nanoTime();
        first.holder().close();
        assertFalse(first.holder().isHolder());
        Candidate next = awaitHolder(c -> c != first, TERM.plus(BEAT));
        Duration handOver = since(closed);

        System.out.printf("duty hand-over on resignation: %d ms from close() to %s holding (term %d s, beat %d ms)%n",
                handOver.toMillis(), next.name(), TERM.toSeconds(), BEAT.toMillis());
        assertTrue(handOver.compareTo(BEAT) < 0, "hand-over after a resignation took " + handOver);
        assertEquals(Optional.empty(), admin.leaseTimeToLive(leaseId), "the resigned lease was revoked");
        assertTrue(events.stream().anyMatch(e -> e.who().equals(first.name()) && e.kind() == Kind.LOST
                && e.reason().startsWith("resigned")), timeline());
        assertEventsNeverOverlap();
    }

    @Test
    @DisplayName("a holder whose client dies without resigning: the duty moves when its lease expires, within one term (plus 1 s for etcd's expiry check and the taking)")
    void deadHolderLosesTheDutyWithinATerm() throws Exception {
        startCandidates("cp-0", "cp-1", "cp-2");
        Candidate first = awaitHolder(c -> true, TERM.plus(BEAT));

        long killed = System.nanoTime();
        first.client().close(); // its channels shut: no keep-alive, no revoke reaches etcd
        Candidate next = awaitHolder(c -> c != first, TERM.plus(BEAT).plus(ETCD_EXPIRY_MARGIN).plus(TERM));
        Duration handOver = since(killed);
        Duration stoppedAfter = lostAfter(first, killed);

        System.out.printf("duty hand-over after the holder's client died: %s holding %d ms after the kill; the dead holder stopped"
                        + " holding after %d ms (term %d s, beat %d ms)%n",
                next.name(), handOver.toMillis(), stoppedAfter.toMillis(), TERM.toSeconds(), BEAT.toMillis());
        assertTrue(handOver.compareTo(TERM.plus(ETCD_EXPIRY_MARGIN)) <= 0, "hand-over after a death took " + handOver);
        assertTrue(handOver.compareTo(TERM.minus(BEAT)) >= 0, "the duty moved before the dead holder's lease could expire: " + handOver);
        assertTrue(lostReason(first).startsWith("its keep-alive failed: etcd lease keep-alive failed"), timeline());
        assertEventsNeverOverlap();
    }

    @Test
    @DisplayName("a holder cut off from every etcd endpoint (they swallow its packets, no error) stops holding within one term, says why, and another takes over")
    void cutOffHolderStopsWithinATerm() throws Exception {
        List<BlackHoleProxy> holes = new ArrayList<>();
        EtcdClient cutOffClient = null;
        try {
            List<String> viaHoles = new ArrayList<>();
            for (String member : MEMBERS) {
                BlackHoleProxy hole = new BlackHoleProxy(ports.next(), cluster.member(member).clientEndpoint());
                holes.add(hole);
                viaHoles.add(hole.endpoint());
            }
            cutOffClient = new EtcdClient(new EtcdClientConfig(viaHoles, cluster.clientTls("cp-0"), Duration.ofSeconds(1)));
            Candidate first = startCandidate("cp-0", cutOffClient);
            awaitHolder(c -> c == first, TERM.plus(BEAT));
            startCandidates("cp-1", "cp-2");
            Thread.sleep(TERM.toMillis()); // renewing through the proxies for a term

            long cut = System.nanoTime();
            holes.forEach(BlackHoleProxy::swallow);
            Duration notHolder = awaitNotHolder(first, cut, TERM);
            Candidate next = awaitHolder(c -> c != first, TERM.plus(BEAT).plus(ETCD_EXPIRY_MARGIN).plus(TERM));
            Duration handOver = since(cut);
            Duration saidSo = lostAfter(first, cut);

            System.out.printf("cut-off holder: isHolder() false %d ms after its endpoints went silent, onLost after %d ms;"
                            + " %s holding after %d ms (term %d s, beat %d ms)%n",
                    notHolder.toMillis(), saidSo.toMillis(), next.name(), handOver.toMillis(), TERM.toSeconds(), BEAT.toMillis());
            assertTrue(saidSo.compareTo(TERM.plus(Duration.ofMillis(500))) <= 0, "the cut-off holder said so after " + saidSo);
            String reason = lostReason(first);
            assertTrue(reason.startsWith("its keep-alive failed: etcd lease keep-alive failed at"), reason);
            assertTrue(reason.contains("no answer within"), reason);
            assertTrue(handOver.compareTo(TERM.plus(ETCD_EXPIRY_MARGIN)) <= 0, "hand-over after a cut took " + handOver);
            assertEventsNeverOverlap();
        } finally {
            if (cutOffClient != null) {
                cutOffClient.close();
            }
            for (BlackHoleProxy hole : holes) {
                hole.close();
            }
        }
    }

    @Test
    @DisplayName("a holder paused longer than the term (its thread blocked) is not holder once the lease's deadline passes, while still paused; another takes over, a write fenced by the paused tenure is refused, and the paused one reports the loss when it wakes")
    void pausedHolderNeverBelievesItHolds() throws Exception {
        CountDownLatch resume = new CountDownLatch(1);
        DutyListener recorder = listener("cp-0");
        DutyListener pausing = new DutyListener() {
            @Override
            public void onTaken(Holding holding) {
                recorder.onTaken(holding);
                try {
                    resume.await(); // the holder's thread stops here: no renewal, as in a GC pause or SIGSTOP
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }

            @Override
            public void onLost(Holding holding, String reason) {
                recorder.onLost(holding, reason);
            }
        };
        EtcdClient client = cluster.client("cp-0", Duration.ofSeconds(1), "cp-0", "cp-1", "cp-2");
        Candidate first = new Candidate("cp-0", client, new DutyHolder(client, config("cp-0"), pausing));
        candidates.add(first);
        first.holder().start();
        try {
            pausedHolderScenario(first, resume);
        } finally {
            resume.countDown();
        }
    }

    private void pausedHolderScenario(Candidate first, CountDownLatch resume) throws Exception {
        awaitHolder(c -> c == first, TERM.plus(BEAT));
        Holding paused = first.holder().holding().orElseThrow();
        long taken = eventAfter(first, Kind.TAKEN, 0);
        startCandidates("cp-1", "cp-2");

        Duration believed = awaitNotHolder(first, taken, TERM);
        Candidate next = awaitHolder(c -> c != first, TERM.plus(BEAT).plus(ETCD_EXPIRY_MARGIN).plus(TERM));
        Duration handOver = since(taken);
        assertTrue(events.stream().noneMatch(e -> e.kind() == Kind.LOST), "the paused holder reported nothing yet");
        // What a round of the paused holder would write now, fenced by its tenure: etcd refuses it.
        String result = key + "-result";
        assertFalse(first.client().fencedPutAll(paused.fence(), Map.of(result, "cp-0"), Map.of()),
                "a write fenced by the paused holder's tenure landed after another tenure began");
        assertTrue(next.client().fencedPutAll(next.holder().holding().orElseThrow().fence(), Map.of(result, next.name()), Map.of()));
        assertEquals(Optional.of(next.name()), admin.get(result));
        resume.countDown();
        Duration reported = lostAfter(first, taken);

        System.out.printf("paused holder: isHolder() false %d ms after taking (term %d s) while its thread was still paused;"
                        + " %s holding after %d ms; the paused one reported the loss at %d ms, when it woke%n",
                believed.toMillis(), TERM.toSeconds(), next.name(), handOver.toMillis(), reported.toMillis());
        assertTrue(handOver.compareTo(TERM.plus(ETCD_EXPIRY_MARGIN)) <= 0, "hand-over from a paused holder took " + handOver);
        // Only the holder's thread is paused here, so its watch (a gRPC thread) may see the key expire first;
        // in a whole-process pause the woken thread finds the term ran out.
        String reason = lostReason(first);
        assertTrue(reason.startsWith("the lease's term ran out before it was renewed") || reason.startsWith("its key was deleted"),
                timeline());
    }

    @Test
    @DisplayName("a holder whose lease is revoked behind its back stops holding within one beat and says why: its watch sees its key deleted, or etcd answers its next keep-alive with TTL 0")
    void revokedLeaseEndsTheTenure() throws Exception {
        // One candidate only: another's watch sees the key go as soon as this holder's does, and may take it
        // before this one stops (README: only a fenced write is safe against a revocation behind its back).
        startCandidates("cp-0");
        Candidate holder = awaitHolder(c -> true, TERM.plus(BEAT));
        long revoked = System.nanoTime();
        assertTrue(admin.revokeLease(holder.holder().holding().orElseThrow().leaseId()));
        Duration said = lostAfter(holder, revoked);

        String reason = lostReason(holder);
        System.out.printf("lease revoked behind the holder's back: it stopped holding %d ms later (beat %d ms): %s%n",
                said.toMillis(), BEAT.toMillis(), reason);
        assertTrue(said.compareTo(BEAT.plus(Duration.ofMillis(500))) <= 0, "stopped after " + said);
        assertTrue(reason.equals("its key was deleted while it held it (the lease revoked or the key removed behind its back)")
                || reason.equals("etcd says the lease is gone (it expired or was revoked)"), reason);
        assertEventsNeverOverlap();
    }

    @Test
    @DisplayName("a duty's term is whole seconds, at least etcd's minimum of 2; the key is absolute; the holder has a name")
    void configIsChecked() {
        assertThrows(IllegalArgumentException.class, () -> new DutyConfig("/k", "cp-0", Duration.ofSeconds(1)));
        assertThrows(IllegalArgumentException.class, () -> new DutyConfig("/k", "cp-0", Duration.ofMillis(2500)));
        assertThrows(IllegalArgumentException.class, () -> new DutyConfig("k", "cp-0", TERM));
        assertThrows(IllegalArgumentException.class, () -> new DutyConfig("/k", " ", TERM));
        assertEquals(Duration.ofSeconds(15), new DutyConfig("/k", "cp-0").term());
        assertEquals(Duration.ofSeconds(5), new DutyConfig("/k", "cp-0").beat());
    }

    private void startCandidates(String... names) {
        for (String name : names) {
            // Each starts at another member, as each join service talks to its own node's member first.
            List<String> order = new ArrayList<>(MEMBERS);
            int own = MEMBERS.indexOf(name);
            Collections.rotate(order, -own);
            startCandidate(name, cluster.client(name, Duration.ofSeconds(1), order.toArray(String[]::new)));
        }
    }

    private Candidate startCandidate(String name, EtcdClient client) {
        Candidate c = new Candidate(name, client, new DutyHolder(client, config(name), listener(name)));
        candidates.add(c);
        c.holder().start();
        return c;
    }

    private DutyConfig config(String name) {
        return new DutyConfig(key, name, TERM);
    }

    private DutyListener listener(String who) {
        return new DutyListener() {
            @Override
            public void onTaken(Holding holding) {
                events.add(new Event(System.nanoTime(), who, Kind.TAKEN, null));
            }

            @Override
            public void onLost(Holding holding, String reason) {
                events.add(new Event(System.nanoTime(), who, Kind.LOST, reason));
            }
        };
    }

    private Candidate awaitHolder(Predicate<Candidate> which, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            for (Candidate c : candidates) {
                if (which.test(c) && c.holder().isHolder()) {
                    return c;
                }
            }
            Thread.sleep(1);
        }
        return fail("no expected candidate held the duty within " + timeout.toMillis() + " ms; timeline:\n" + timeline());
    }

    /**
     * Asks {@code c.isHolder()} every millisecond until it says no, and fails if it said yes when asked
     * later than {@code atMost} after {@code from}; returns when, after {@code from}, it first said no.
     */
    private Duration awaitNotHolder(Candidate c, long from, Duration atMost) throws InterruptedException {
        while (true) {
            long asked = System.nanoTime();
            if (!c.holder().isHolder()) {
                return Duration.ofNanos(asked - from);
            }
            assertTrue(asked - from < atMost.toNanos(), c.name() + " still said isHolder() " + (asked - from) / 1_000_000
                    + " ms after it could last have renewed (bound " + atMost.toMillis() + " ms); timeline:\n" + timeline());
            Thread.sleep(1);
        }
    }

    private List<String> holders() {
        return candidates.stream().filter(c -> c.holder().isHolder()).map(Candidate::name).toList();
    }

    /** How long after {@code from} the candidate's first onLost came (waiting three terms for it). */
    private Duration lostAfter(Candidate c, long from) throws InterruptedException {
        return Duration.ofNanos(eventAfter(c, Kind.LOST, 0) - from);
    }

    /** When the candidate's {@code index}-th event of this kind came (waiting three terms for it). */
    private long eventAfter(Candidate c, Kind kind, int index) throws InterruptedException {
        long deadline = System.nanoTime() + TERM.multipliedBy(3).toNanos();
        while (System.nanoTime() < deadline) {
            List<Event> found = events.stream().filter(e -> e.who().equals(c.name()) && e.kind() == kind).toList();
            if (found.size() > index) {
                return found.get(index).nanos();
            }
            Thread.sleep(1);
        }
        return fail(c.name() + " never reported " + kind + " (#" + index + "); timeline:\n" + timeline());
    }

    private String lostReason(Candidate c) {
        return events.stream().filter(e -> e.who().equals(c.name()) && e.kind() == Kind.LOST).findFirst().orElseThrow().reason();
    }

    /** In the listeners' order of events, nobody takes the duty before the one holding it said it lost it. */
    private void assertEventsNeverOverlap() {
        List<Event> ordered = events.stream().sorted((a, b) -> Long.compare(a.nanos(), b.nanos())).toList();
        String holding = null;
        for (Event e : ordered) {
            if (e.kind() == Kind.TAKEN) {
                assertEquals(null, holding, e.who() + " took the duty while " + holding + " held it:\n" + timeline());
                holding = e.who();
            } else {
                assertEquals(e.who(), holding, "a loss by one not holding:\n" + timeline());
                holding = null;
            }
        }
        assertNotEquals(0, ordered.size());
    }

    private String timeline() {
        return events.stream().sorted((a, b) -> Long.compare(a.nanos(), b.nanos())).map(Event::toString)
                .collect(Collectors.joining("\n"));
    }

    private static Duration since(long nanos) {
        return Duration.ofNanos(System.nanoTime() - nanos);
    }
}
