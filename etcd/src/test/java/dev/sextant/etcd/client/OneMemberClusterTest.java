package dev.sextant.etcd.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sextant.etcd.pki.EtcdCa;
import dev.sextant.etcd.pki.EtcdCredential;
import dev.sextant.etcd.pki.EtcdTlsFiles;
import dev.sextant.etcd.testkit.EtcdInstalled;
import dev.sextant.etcd.testkit.TestEtcdCluster;
import dev.sextant.etcd.testkit.Tmpfs;
import io.grpc.Status;
import java.net.InetAddress;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.time.Instant;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/** The client's calls against one real etcd member over mutual TLS; each test uses keys of its own. */
@DisplayName("EtcdClient against a one-member etcd cluster")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class OneMemberClusterTest {
    private static final String V1 = "/sextant/v1/";

    private TestEtcdCluster cluster;
    private EtcdClient client;

    @BeforeAll
    void start(@TempDir(factory = Tmpfs.class) Path dir) throws Exception {
        EtcdInstalled.require();
        byte[] seed = new byte[32];
        new SecureRandom().nextBytes(seed);
        cluster = new TestEtcdCluster(dir, seed);
        cluster.startFirst("cp-0");
        client = cluster.client("join-service", "cp-0");
    }

    @AfterAll
    void stop() throws Exception {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    @DisplayName("a value put is read back; a key never written reads as absent")
    void putAndGet() {
        client.put(V1 + "measurements/floor", "3");
        assertEquals(Optional.of("3"), client.get(V1 + "measurements/floor"));
        assertEquals(Optional.empty(), client.get(V1 + "measurements/none"));
    }

    @Test
    @DisplayName("several prefixes are read with their keys' revisions in one round trip, in the prefixes' order and each in key order; a key outside them is not read")
    void prefixesVersioned() {
        String root = V1 + "prefixes-" + java.util.UUID.randomUUID() + "/";
        client.put(root + "b/2", "b2");
        client.put(root + "a/1", "a1");
        client.put(root + "b/1", "b1");
        client.put(root + "c/1", "c1");
        long before = client.roundTrips();
        java.util.Map<String, Versioned> read = client.getPrefixesVersioned(java.util.List.of(root + "b/", root + "a/"));
        assertEquals(1, client.roundTrips() - before, "round trips");
        assertEquals(java.util.List.of(root + "b/1", root + "b/2", root + "a/1"), java.util.List.copyOf(read.keySet()));
        assertEquals("b2", read.get(root + "b/2").value());
        assertEquals(client.getVersioned(root + "a/1").orElseThrow().modRevision(), read.get(root + "a/1").modRevision());
    }

    @Test
    @DisplayName("a compare-and-put writes only over the revision it read: absent (0) first, then the value's own revision; a stale revision writes nothing")
    void compareAndPut() {
        String key = "/test/cas";
        assertTrue(client.putIfUnmodified(key, "1", 0));
        assertFalse(client.putIfUnmodified(key, "2", 0), "the key exists now");
        Versioned one = client.getVersioned(key).orElseThrow();
        assertEquals("1", one.value());
        assertTrue(client.putIfUnmodified(key, "2", one.modRevision()));
        assertFalse(client.putIfUnmodified(key, "3", one.modRevision()), "a stale revision");
        assertEquals("2", client.get(key).orElseThrow());
    }

    @Test
    @DisplayName("a multi-key compare-and-put writes every key in one round trip while each compared key is at its revision (0: absent), and none when one moved")
    void putAllIf() {
        String set = V1 + "cap/set";
        String floor = V1 + "cap/floor";
        String retired = V1 + "cap/retired/a";
        client.put(floor, "1");
        long floorRevision = client.getVersioned(floor).orElseThrow().modRevision();
        long before = client.roundTrips();
        assertTrue(client.putAllIf(Optional.empty(), java.util.Map.of(set, 0L, floor, floorRevision, retired, 0L),
                java.util.Map.of(set, "s2", floor, "2", retired, "d"), java.util.List.of()).written());
        assertEquals(1, client.roundTrips() - before, "round trips");
        long setRevision = client.getVersioned(set).orElseThrow().modRevision();

        client.put(floor, "5"); // another writer raised the floor meanwhile
        assertFalse(client.putAllIf(Optional.empty(), java.util.Map.of(set, setRevision, floor, floorRevision),
                java.util.Map.of(set, "s3", floor, "3"), java.util.List.of()).written());
        assertEquals(Optional.of("s2"), client.get(set), "a refused compare-and-put wrote a key");
        assertEquals(Optional.of("5"), client.get(floor));
    }

    @Test
    @DisplayName("several keys read in one round trip, at one revision, each with its own modification revision; an absent key is left out")
    void getAllVersioned() {
        String pin = V1 + "read-all/key";
        String floor = V1 + "read-all/floor";
        client.put(pin, "k");
        client.put(floor, "7");
        long before = client.roundTrips();
        java.util.Map<String, Versioned> read = client.getAllVersioned(java.util.List.of(pin, floor, V1 + "read-all/absent"));
        assertEquals(1, client.roundTrips() - before, "round trips");
        assertEquals(java.util.List.of(pin, floor), java.util.List.copyOf(read.keySet()));
        assertEquals(client.getVersioned(pin), Optional.of(read.get(pin)));
        assertEquals(client.getVersioned(floor), Optional.of(read.get(floor)));
        assertThrows(IllegalArgumentException.class, () -> client.getAllVersioned(java.util.List.of()));
    }

    @Test
    @DisplayName("a prefix read returns every key under the prefix with its value, in key order, and nothing beside it")
    void prefix() {
        client.put(V1 + "pfx/retired/b", "2");
        client.put(V1 + "pfx/retired/a", "1");
        client.put(V1 + "pfx/retiredX", "not under the prefix");
        assertEquals(java.util.List.of(java.util.Map.entry(V1 + "pfx/retired/a", "1"), java.util.Map.entry(V1 + "pfx/retired/b", "2")),
                java.util.List.copyOf(client.getPrefix(V1 + "pfx/retired/").entrySet()));
        assertEquals(java.util.Map.of(), client.getPrefix(V1 + "pfx/none/"));
    }

    @Test
    @DisplayName("a create-all of five absent keys creates all five in one round trip")
    void createAllCreates() {
        Map<String, String> join = firstJoin("disk-a", "node-a", "ak-a");
        long before = client.roundTrips();
        CreateAllResult result = client.createAll(join);
        assertEquals(1, client.roundTrips() - before, "round trips");
        assertInstanceOf(CreateAllResult.Created.class, result);
        join.forEach((key, value) -> assertEquals(Optional.of(value), client.get(key)));
    }

    @Test
    @DisplayName("a create-all sharing one key with bound values creates nothing and returns the present values, in the same single round trip")
    void createAllRefusedReturnsPresentValues() {
        assertInstanceOf(CreateAllResult.Created.class, client.createAll(firstJoin("disk-b", "node-b", "ak-b")));
        Map<String, String> rival = firstJoin("disk-b", "node-other", "ak-other"); // the same disk, claimed by another AK

        long before = client.roundTrips();
        CreateAllResult result = client.createAll(rival);
        assertEquals(1, client.roundTrips() - before, "round trips");

        CreateAllResult.Refused refused = assertInstanceOf(CreateAllResult.Refused.class, result);
        assertEquals(Map.of(V1 + "bindings/disk/disk-b", "ak-b"), refused.present());
        assertEquals(List.of(), refused.changedUnderPrefix());
        for (String key : rival.keySet()) {
            if (!key.equals(V1 + "bindings/disk/disk-b")) {
                assertEquals(Optional.empty(), client.get(key), key + " written although the transaction was refused");
            }
        }
    }

    @Test
    @DisplayName("with a prefix guard at revision R, a create-all is refused when a key under the prefix was written after R, and names it")
    void prefixGuardRefusesLaterChange() {
        String prefix = V1 + "guarded-" + System.nanoTime() + "/control-planes/";
        client.put(prefix + "ak-1", "cp-1");
        PrefixCount counted = client.count(prefix);
        assertEquals(1, counted.count());
        PrefixUnchangedSince guard = new PrefixUnchangedSince(prefix, counted.revision());

        client.put(prefix + "ak-2", "cp-2"); // another control plane admitted meanwhile
        CreateAllResult late = client.createAll(Map.of(prefix + "ak-3", "cp-3"), Optional.of(guard));
        CreateAllResult.Refused refused = assertInstanceOf(CreateAllResult.Refused.class, late);
        assertEquals(Map.of(), refused.present());
        assertEquals(List.of(prefix + "ak-2"), refused.changedUnderPrefix());
        assertEquals(Optional.empty(), client.get(prefix + "ak-3"));

        PrefixCount again = client.count(prefix);
        assertEquals(2, again.count());
        assertInstanceOf(CreateAllResult.Created.class,
                client.createAll(Map.of(prefix + "ak-3", "cp-3"), Optional.of(new PrefixUnchangedSince(prefix, again.revision()))));
    }

    @Test
    @DisplayName("a count under a prefix reads no values and reports the revision it counted at")
    void countOnly() {
        String prefix = V1 + "count-" + System.nanoTime() + "/";
        long revision = 0;
        for (int i = 0; i < 3; i++) {
            revision = client.put(prefix + i, "v");
        }
        assertEquals(new PrefixCount(3, revision), client.count(prefix));
        assertEquals(0, client.count(prefix + "none/").count());
    }

    @Test
    @DisplayName("the status of the only member: it leads, and has applied what it committed")
    void statusOfTheLeader() {
        String endpoint = cluster.member("cp-0").clientEndpoint();
        EndpointStatus status = client.status(endpoint);
        assertEquals(EndpointStatus.Role.LEADER, status.role());
        assertEquals(status.memberId(), status.leaderId());
        assertTrue(status.raftAppliedIndex() > 0 && status.raftAppliedIndex() <= status.raftIndex() + 1, status.toString());
        assertTrue(status.version().startsWith("3.4."), status.version());
        assertEquals(List.of(), status.errors());
        EtcdMember self = client.members().get(0);
        assertEquals("cp-0", self.name());
        assertEquals(List.of(endpoint), self.clientEndpoints());
    }

    @Test
    @DisplayName("a client whose endpoints have nothing listening fails with UNAVAILABLE, naming every endpoint, within its deadline")
    void nothingListening() {
        String dead1 = "127.0.0.1:" + 1;
        String dead2 = "127.0.0.1:" + 2;
        EtcdTlsFiles tls = cluster.clientTls("lost");
        try (EtcdClient lost = new EtcdClient(new EtcdClientConfig(List.of(dead1, dead2), tls, Duration.ofSeconds(2)))) {
            EtcdException e = assertThrows(EtcdException.class, () -> lost.put(V1 + "x", "secret-value-42"));
            assertEquals(Status.Code.UNAVAILABLE, e.code());
            assertTrue(e.getMessage().contains(dead1) && e.getMessage().contains(dead2), e.getMessage());
            assertTrue(e.getMessage().startsWith("etcd put failed at every endpoint"), e.getMessage());
            assertTrue(!e.getMessage().contains("secret-value-42"), "the value leaked into " + e.getMessage());
            assertEquals(2, lost.roundTrips());
        }
    }

    @Test
    @DisplayName("a member certificate renewed over etcd's files is served from the next handshake on, without a restart")
    void renewedCertificateServedWithoutRestart() throws Exception {
        TestEtcdCluster.Member m = cluster.member("cp-0");
        EtcdCredential probe = cluster.ca().issueClient("probe", Instant.now(), Duration.ofDays(1));
        X509Certificate before = servedCertificate(m.clientPort(), probe);

        EtcdCredential renewed = cluster.ca().issueMember("cp-0", List.of(), List.of(InetAddress.getLoopbackAddress()),
                Instant.now(), EtcdCa.DEFAULT_VALIDITY);
        EtcdTlsFiles.write(m.tls().certFile().getParent(), "cp-0", cluster.ca().certificate(), renewed);

        X509Certificate after = servedCertificate(m.clientPort(), probe);
        assertEquals(renewed.certificate(), after);
        assertNotEquals(before, after);
        try (EtcdClient fresh = cluster.client("after-renewal", "cp-0")) {
            fresh.put(V1 + "renewed", "3");
            assertEquals(Optional.of("3"), fresh.get(V1 + "renewed"));
        }
    }

    /** The certificate the member presents in a fresh handshake (a new SSLContext: no session to resume). */
    private X509Certificate servedCertificate(int port, EtcdCredential client) throws Exception {
        char[] password = "p".toCharArray();
        KeyStore keys = KeyStore.getInstance("PKCS12");
        keys.load(null, null);
        keys.setKeyEntry("client", client.privateKey(), password, new Certificate[]{client.certificate()});
        KeyManagerFactory kmf = KeyManagerFactory.getInstance("PKIX");
        kmf.init(keys, password);
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        trust.setCertificateEntry("ca", cluster.ca().certificate());
        TrustManagerFactory tmf = TrustManagerFactory.getInstance("PKIX");
        tmf.init(trust);
        SSLContext tls = SSLContext.getInstance("TLS");
        tls.init(kmf.getKeyManagers(), tmf.getTrustManagers(), null);
        try (SSLSocket socket = (SSLSocket) tls.getSocketFactory().createSocket("127.0.0.1", port)) {
            socket.startHandshake();
            return (X509Certificate) socket.getSession().getPeerCertificates()[0];
        }
    }

    private static Map<String, String> firstJoin(String disk, String node, String ak) {
        return Map.of(
                V1 + "bindings/disk/" + disk, ak,
                V1 + "bindings/node/" + node, ak,
                V1 + "bindings/machine/" + ak + "/disk", disk,
                V1 + "bindings/machine/" + ak + "/node", node,
                V1 + "bindings/machine/" + ak + "/role", "worker");
    }
}
