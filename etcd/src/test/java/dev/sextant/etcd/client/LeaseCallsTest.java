package dev.sextant.etcd.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sextant.etcd.testkit.BlackHoleProxy;
import dev.sextant.etcd.testkit.EtcdInstalled;
import dev.sextant.etcd.testkit.LoopbackPorts;
import dev.sextant.etcd.testkit.TestEtcdCluster;
import dev.sextant.etcd.testkit.Tmpfs;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/** The lease calls against one real etcd member: grant, the create-if-absent under a lease, keep-alive, revoke. */
@DisplayName("EtcdClient's leases against a one-member etcd cluster")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LeaseCallsTest {
    private static final String KEY = "/sextant/v1/test/lease-holder";

    private TestEtcdCluster cluster;
    private EtcdClient client;
    private final LoopbackPorts ports = new LoopbackPorts();

    @BeforeAll
    void start(@TempDir(factory = Tmpfs.class) Path dir) throws Exception {
        EtcdInstalled.require();
        byte[] seed = new byte[32];
        new SecureRandom().nextBytes(seed);
        cluster = new TestEtcdCluster(dir, seed);
        cluster.startFirst("cp-0");
        client = cluster.client("join-service", Duration.ofSeconds(1), "cp-0");
    }

    @AfterAll
    void stop() throws Exception {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    @DisplayName("a key created under a lease is there while the lease is kept alive, and gone the moment the lease is revoked; a keep-alive then answers TTL 0")
    void keyLivesAndDiesWithItsLease() {
        Lease lease = client.grantLease(Duration.ofSeconds(5));
        assertEquals(5, lease.ttlSeconds());
        CreateIfAbsentResult.Created created = assertInstanceOf(CreateIfAbsentResult.Created.class,
                client.createIfAbsent(KEY + "/1", "cp-0", lease.id()));
        assertEquals(Optional.of("cp-0"), client.get(KEY + "/1"));

        CreateIfAbsentResult.Present present = assertInstanceOf(CreateIfAbsentResult.Present.class,
                client.createIfAbsent(KEY + "/1", "cp-1", 0));
        assertEquals(List.of("cp-0", lease.id(), created.revision()), List.of(present.value(), present.leaseId(), present.createRevision()),
                "the refused create reads the holder, its lease and its create revision in the same transaction");
        assertTrue(present.readRevision() >= created.revision());
        assertFalse(present.toString().contains("cp-0"), "no value in a result's text");

        try (LeaseKeepAlive keepAlive = client.keepAlive(lease.id())) {
            assertEquals(5, keepAlive.renew(Duration.ofSeconds(2)));
            assertEquals(5, keepAlive.renew(Duration.ofSeconds(2)), "the same stream answers again");
            assertTrue(client.leaseTimeToLive(lease.id()).orElseThrow() >= 3);

            assertTrue(client.revokeLease(lease.id()));
            assertEquals(Optional.empty(), client.get(KEY + "/1"), "revoking the lease deleted its key");
            assertEquals(0, keepAlive.renew(Duration.ofSeconds(2)), "a keep-alive of a revoked lease answers TTL 0");
        }
        assertFalse(client.revokeLease(lease.id()), "a second revoke finds no lease");
        assertEquals(Optional.empty(), client.leaseTimeToLive(lease.id()));
    }

    @Test
    @DisplayName("a lease not kept alive expires after its TTL, and its key with it")
    void leaseExpires() throws Exception {
        Lease lease = client.grantLease(Duration.ofSeconds(2));
        assertInstanceOf(CreateIfAbsentResult.Created.class, client.createIfAbsent(KEY + "/2", "cp-0", lease.id()));
        long start = System.nanoTime();
        while (client.get(KEY + "/2").isPresent()) {
            assertTrue(System.nanoTime() - start < Duration.ofSeconds(5).toNanos(), "the key outlived its 2 s lease by 3 s");
            Thread.sleep(50);
        }
        System.out.printf("lease expiry: a 2 s lease's key was gone %d ms after its grant%n", (System.nanoTime() - start) / 1_000_000);
        assertEquals(Optional.empty(), client.leaseTimeToLive(lease.id()));
    }

    @Test
    @DisplayName("a keep-alive goes on at the next endpoint when the first refuses connections")
    void keepAliveFailsOver() {
        int nothing = ports.next();
        try (EtcdClient twoEndpoints = cluster.client("fail-over", Duration.ofSeconds(1), "cp-0");
             EtcdClient viaDeadFirst = new EtcdClient(new EtcdClientConfig(
                     List.of("127.0.0.1:" + nothing, cluster.member("cp-0").clientEndpoint()), cluster.clientTls("dead-first"),
                     Duration.ofSeconds(1)))) {
            Lease lease = twoEndpoints.grantLease(Duration.ofSeconds(5));
            try (LeaseKeepAlive keepAlive = viaDeadFirst.keepAlive(lease.id())) {
                assertEquals(5, keepAlive.renew(Duration.ofSeconds(3)));
            }
            twoEndpoints.revokeLease(lease.id());
        }
    }

    @Test
    @DisplayName("a keep-alive to an endpoint that swallows everything fails within its budget, naming the operation and the endpoint, and no key or value")
    void keepAliveIntoSilenceFails() throws Exception {
        Lease lease = client.grantLease(Duration.ofSeconds(5));
        client.createIfAbsent(KEY + "/3", "secret-holder-name", lease.id());
        try (BlackHoleProxy hole = new BlackHoleProxy(ports.next(), cluster.member("cp-0").clientEndpoint());
             EtcdClient viaHole = new EtcdClient(new EtcdClientConfig(List.of(hole.endpoint()), cluster.clientTls("via-hole"),
                     Duration.ofSeconds(1)));
             LeaseKeepAlive keepAlive = viaHole.keepAlive(lease.id())) {
            assertEquals(5, keepAlive.renew(Duration.ofSeconds(2)), "through the proxy while it forwards");
            hole.swallow();
            long start = System.nanoTime();
            EtcdException e = assertThrows(EtcdException.class, () -> keepAlive.renew(Duration.ofMillis(1500)));
            long took = (System.nanoTime() - start) / 1_000_000;
            assertTrue(took < 2000, "a 1.5 s budget took " + took + " ms");
            assertTrue(e.getMessage().startsWith("etcd lease keep-alive failed at " + hole.endpoint()), e.getMessage());
            assertTrue(e.getMessage().contains("no answer within"), e.getMessage());
            assertFalse(e.getMessage().contains("secret-holder-name") || e.getMessage().contains(KEY), e.getMessage());
        } finally {
            client.revokeLease(lease.id());
        }
    }

    @Test
    @DisplayName("a deletion watch from the revision a key was read at reports its deletion: one after the watch opened, and one between the read and the watch")
    void deletionWatch() throws Exception {
        Lease lease = client.grantLease(Duration.ofSeconds(5));
        client.createIfAbsent(KEY + "/4", "cp-0", lease.id());
        CreateIfAbsentResult.Present seen = assertInstanceOf(CreateIfAbsentResult.Present.class, client.createIfAbsent(KEY + "/4", "cp-1", 0));
        CountDownLatch deleted = new CountDownLatch(1);
        try (KeyDeletionWatch watch = client.watchDeletion(KEY + "/4", seen.readRevision() + 1, deleted::countDown)) {
            assertFalse(deleted.await(300, TimeUnit.MILLISECONDS), "reported while the key is there");
            assertTrue(watch.active());
            client.revokeLease(lease.id());
            assertTrue(deleted.await(2, TimeUnit.SECONDS), "the deletion was not reported");
            assertFalse(watch.active(), "a watch ends at the first deletion");
        }

        Lease second = client.grantLease(Duration.ofSeconds(5));
        client.createIfAbsent(KEY + "/5", "cp-0", second.id());
        CreateIfAbsentResult.Present read = assertInstanceOf(CreateIfAbsentResult.Present.class, client.createIfAbsent(KEY + "/5", "cp-1", 0));
        client.revokeLease(second.id()); // deleted before the watch opens
        CountDownLatch alreadyDeleted = new CountDownLatch(1);
        try (KeyDeletionWatch watch = client.watchDeletion(KEY + "/5", read.readRevision() + 1, alreadyDeleted::countDown)) {
            assertTrue(alreadyDeleted.await(2, TimeUnit.SECONDS), "a deletion between the read and the watch was missed");
        }
    }

    @Test
    @DisplayName("a fenced write lands while the fence's key exists at its create revision and each compared key is unmodified; not once the key is gone or made again, nor over a changed key")
    void fencedWrite() {
        Lease lease = client.grantLease(Duration.ofSeconds(5));
        long created = ((CreateIfAbsentResult.Created) client.createIfAbsent(KEY + "/6", "cp-0", lease.id())).revision();
        Fence fence = new Fence(KEY + "/6", created);
        assertTrue(client.fencedPutAll(fence, Map.of(KEY + "/6-a", "1", KEY + "/6-b", "1"), Map.of(KEY + "/6-c", 0L)));
        long aRevision = client.getVersioned(KEY + "/6-a").orElseThrow().modRevision();
        assertFalse(client.fencedPutAll(fence, Map.of(KEY + "/6-b", "2"), Map.of(KEY + "/6-a", aRevision - 1)), "over a changed key");
        assertTrue(client.fencedPutAll(fence, Map.of(KEY + "/6-b", "2"), Map.of(KEY + "/6-a", aRevision)));

        client.revokeLease(lease.id());
        assertFalse(client.fencedPutAll(fence, Map.of(KEY + "/6-b", "3"), Map.of()), "the fence's key is gone");
        Lease next = client.grantLease(Duration.ofSeconds(5));
        client.createIfAbsent(KEY + "/6", "cp-1", next.id());
        assertFalse(client.fencedPutAll(fence, Map.of(KEY + "/6-b", "3"), Map.of()), "the fence's key was made again: another tenure");
        assertEquals(Optional.of("2"), client.get(KEY + "/6-b"));
        client.revokeLease(next.id());
    }

    @Test
    @DisplayName("a lease's TTL is whole seconds, at least one")
    void ttlIsWholeSeconds() {
        assertThrows(IllegalArgumentException.class, () -> client.grantLease(Duration.ofMillis(1500)));
        assertThrows(IllegalArgumentException.class, () -> client.grantLease(Duration.ZERO));
    }
}
