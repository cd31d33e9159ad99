package dev.sextant.joinapi.binding;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.sextant.etcd.client.EtcdClient;
import dev.sextant.etcd.client.EtcdClientConfig;
import dev.sextant.etcd.testkit.EtcdInstalled;
import dev.sextant.etcd.testkit.TestEtcdCluster;
import dev.sextant.etcd.testkit.Tmpfs;
import dev.sextant.grpcsupport.Refusal;
import dev.sextant.joinapi.TestCaller;
import dev.sextant.joinapi.clusterstore.ClusterStoreRetry;
import dev.sextant.joinapi.clusterstore.EtcdConnection;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The init node's claim at the join service's start, against a real etcd member that is not running
 * when the claim begins: the claim is the first etcd call of a cold JVM, and under TCG it can outlast a
 * call's deadline; it must be made again, not lost. Fails, never skips, without /usr/bin/etcd.
 */
@DisplayName("The init node's claim at start-up: retried with back-off while etcd does not answer, within a bounded time")
class InitNodeClaimRetryTest {
    private static final String V1 = "/sextant/v1/";
    private static final byte[] AK = TestCaller.ak("claim-retry-init");
    private static final String NODE = "claim-retry-init";
    /** Each attempt at the member waits this long: short, so a test spends its time in retries, not deadlines. */
    private static final Duration CALL_DEADLINE = Duration.ofMillis(500);

    @TempDir(factory = Tmpfs.class)
    Path dir;

    private TestEtcdCluster etcd;
    private EtcdConnection connection;
    private final List<Duration> waits = new CopyOnWriteArrayList<>();
    private final ListAppender<ILoggingEvent> log = new ListAppender<>();
    private final Logger retryLog = (Logger) org.slf4j.LoggerFactory.getLogger(ClusterStoreRetry.class);

    @BeforeEach
    void setUp() {
        EtcdInstalled.require();
        byte[] seed = new byte[32];
        new SecureRandom().nextBytes(seed);
        etcd = new TestEtcdCluster(dir, seed);
        TestEtcdCluster.Member member = etcd.member("etcd-0"); // its ports and certificate; not started yet
        connection = new EtcdConnection(new EtcdClientConfig(List.of(member.clientEndpoint()),
                etcd.clientTls("join-service"), CALL_DEADLINE));
        log.start();
        retryLog.addAppender(log);
    }

    @AfterEach
    void tearDown() throws Exception {
        retryLog.detachAppender(log);
        connection.close();
        etcd.close();
    }

    /** Spends each wait and records it. */
    private ClusterStoreRetry retry(Duration budget) {
        return new ClusterStoreRetry(new ClusterStoreRetry.Policy(Duration.ofMillis(200), Duration.ofSeconds(1), budget), d -> {
            waits.add(d);
            Thread.sleep(d.toMillis());
        }, Clock.systemUTC(), () -> 0.5);
    }

    private InitNodeClaim claim(String disk, ClusterStoreRetry retry) {
        return new InitNodeClaim(new Bindings(new EtcdBindingStore(connection), 3),
                Optional.of(new InitNodeClaim.InitNode(AK, NODE, List.of(disk))), 3, retry);
    }

    private List<String> logLines() {
        return log.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
    }

    @Test
    @DisplayName("etcd down when the claim begins and started 3 s later: the claim is made again until it answers, each retry logged (attempt, etcd's words; no key, no value), and the init node's disk, name, role, place and the limit are bound")
    void etcdComesUpLater() throws Exception {
        String disk = UUID.randomUUID().toString();
        CompletableFuture<InitNodeClaim> started = CompletableFuture.supplyAsync(() -> claim(disk, retry(Duration.ofSeconds(60))));
        Thread.sleep(3000);
        assertFalse(started.isDone(), "the claim gave up while etcd was down: " + (started.isDone() ? started.join() : ""));
        Instant up = Instant.now();
        etcd.startFirst("etcd-0");

        started.get(60, TimeUnit.SECONDS);
        System.out.printf("InitNodeClaimRetryTest: claim bound %.2f s after etcd answered, after %d retries%n",
                Duration.between(up, Instant.now()).toMillis() / 1000.0, waits.size());

        assertTrue(waits.size() >= 2, "retried while etcd was down: " + waits);
        EtcdClient admin = etcd.client("test-admin", "etcd-0");
        String ak = HexFormat.of().formatHex(AK);
        assertEquals(Optional.of(ak), admin.get(V1 + "bindings/disk/" + disk));
        assertEquals(Optional.of(ak), admin.get(V1 + "bindings/node/" + NODE));
        assertEquals(Optional.of("control-plane"), admin.get(V1 + "bindings/machine/" + ak + "/role"));
        assertEquals(Optional.of(NODE), admin.get(V1 + "control-planes/" + ak));
        assertEquals(Optional.of("3"), admin.get(V1 + "cluster/control-planes"));

        List<String> lines = logLines();
        assertTrue(lines.size() >= 2, "each retry is logged: " + lines);
        for (String line : lines) {
            assertTrue(line.contains("binding the init node " + NODE + " before serving: attempt "), line);
            assertTrue(line.contains("the cluster store (etcd) did not answer"), line);
            assertTrue(line.contains("create-all transaction"), "etcd's words (the operation) are in the log: " + line);
            assertFalse(line.contains(disk) || line.contains(ak) || line.contains("/sextant/v1/"), "no key, no value: " + line);
        }
    }

    @Test
    @DisplayName("etcd never answers: the claim gives up once its budget is spent, and the service refuses to start naming the cluster store and how long it tried")
    void etcdNeverAnswers() {
        // The first call of this JVM loads gRPC, Netty and TLS: made here, so the budget is spent in retries.
        assertThrows(Refusal.class, () -> connection.call(c -> c.get(V1 + "warm-up")));
        Instant start = Instant.now();
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> claim(UUID.randomUUID().toString(), retry(Duration.ofSeconds(3))));
        Duration took = Duration.between(start, Instant.now());
        assertTrue(e.getMessage().startsWith("cannot bind the init node " + NODE + " to its AK before serving: "
                + "the cluster store (etcd) did not answer"), e.getMessage());
        assertTrue(e.getMessage().contains("retried for at most 3 s"), e.getMessage());
        assertTrue(waits.size() >= 2, "retried: " + waits);
        assertTrue(took.compareTo(Duration.ofSeconds(3 + 3)) < 0, "bounded by the budget (and one call's deadline): " + took);
    }

    @Test
    @DisplayName("the init node's disk held by another AK: refused at the first attempt, not retried (asking again cannot change the owner)")
    void conflictIsNotRetried() throws Exception {
        etcd.startFirst("etcd-0");
        String disk = UUID.randomUUID().toString();
        etcd.client("test-admin", "etcd-0").put(V1 + "bindings/disk/" + disk, HexFormat.of().formatHex(TestCaller.ak("usurper")));

        IllegalStateException e = assertThrows(IllegalStateException.class, () -> claim(disk, retry(Duration.ofSeconds(30))));

        assertTrue(e.getMessage().contains("disk " + disk + " belongs to another machine"), e.getMessage());
        assertEquals(List.of(), waits, "no retry");
    }
}
