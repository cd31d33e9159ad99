package dev.sextant.joinapi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.sextant.attestation.policy.MeasurementsFile;
import dev.sextant.etcd.client.EtcdClient;
import dev.sextant.etcd.client.EtcdMember;
import dev.sextant.etcd.pki.EtcdCa;
import dev.sextant.etcd.pki.EtcdTlsFiles;
import dev.sextant.etcd.process.EtcdMemberConfig;
import dev.sextant.etcd.testkit.LoopbackPorts;
import dev.sextant.etcd.testkit.TestEtcdCluster;
import dev.sextant.etcd.testkit.Tmpfs;
import dev.sextant.joinapi.controlplane.ShortLearnerPromotion;
import dev.sextant.keys.KeyDerivation;
import dev.sextant.proto.v1.ControlPlaneJoin;
import dev.sextant.proto.v1.EtcdPeer;
import dev.sextant.proto.v1.IssueJoinTicketRequest;
import dev.sextant.proto.v1.IssueJoinTicketResponse;
import dev.sextant.serviceconfig.JoinServiceConfig;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.NettyChannelBuilder;
import io.micronaut.context.ApplicationContext;
import io.micronaut.grpc.server.GrpcEmbeddedServer;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * A control plane's first join (docs/cluster-store.md) against real etcd: the init control plane's
 * one-member etcd, whose CA is derived from the master secret as every control plane derives it, and
 * three join services on it, as on three control planes: one that promotes in five minutes, one whose
 * never-started learners are removed after {@link #SHORT_TIMEOUT}, one without the master secret. Rows
 * run in order, because etcd's membership is shared: the member joined in the first row stays a voter.
 * Every log line of the class is captured, for the last row.
 */
@DisplayName("A control plane's first join: the master secret, an etcd learner added and promoted, and what is refused before either")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ControlPlaneJoinTest {
    private static final String V1 = "/sextant/v1/";
    private static final String INIT = "etcd-0";
    private static final int LIMIT = 7;
    private static final Duration SHORT_TIMEOUT = Duration.ofSeconds(3);

    private TestCluster cluster;
    private TestClusterStore etcd;
    private EtcdClient admin;
    /** The joining control plane's own etcd, its certificates from the CA the ticket's master secret derives. */
    private TestEtcdCluster joined;
    private final LoopbackPorts ports = new LoopbackPorts();
    private final List<ApplicationContext> services = new ArrayList<>();
    private final Map<String, ManagedChannel> channels = new LinkedHashMap<>();
    private final ListAppender<ILoggingEvent> logs = new ListAppender<>();
    private final List<String> refusals = new CopyOnWriteArrayList<>();
    private Logger root;
    private Level rootLevel;

    @TempDir(factory = Tmpfs.class)
    Path dir;

    @BeforeAll
    void start() throws Exception {
        cluster = new TestCluster();
        etcd = new TestClusterStore(1, etcdCaSeed(cluster.masterSecret, cluster.masterSalt));
        admin = etcd.admin();
        serve("promoting", p -> { });
        serve("short", p -> p.put(ShortLearnerPromotion.PROPERTY, SHORT_TIMEOUT.toMillis() + "ms"));
        serve("no-secret", p -> {
            p.remove(JoinServiceConfig.MASTER_SECRET_FILE);
            p.remove(JoinServiceConfig.MASTER_SECRET_SALT_FILE);
        });
        // After the services started: Micronaut reconfigures logback while starting, dropping appenders.
        root = (Logger) org.slf4j.LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        rootLevel = root.getLevel();
        logs.start();
        root.addAppender(logs);
        root.setLevel(Level.TRACE);
    }

    /** As node-boot derives it (ControlPlaneEtcd.ca): the data key "etcd-ca" of the master secret. */
    private static byte[] etcdCaSeed(byte[] masterSecret, byte[] masterSalt) {
        return new KeyDerivation(masterSecret, masterSalt).dataKey(EtcdCa.KEY_ID, KeyDerivation.KEY_BYTES);
    }

    /** A control plane's join service without Kubernetes, on the init control plane's etcd. */
    private void serve(String name, Consumer<Map<String, Object>> change) {
        Map<String, Object> p = new HashMap<>(etcd.joinService(cluster, name));
        p.remove(JoinServiceConfig.KUBERNETES_BASE_PATH);
        p.put(JoinServiceConfig.KUBERNETES_ENABLED, "false");
        p.put(JoinServiceConfig.INIT_NODE_AK_NAME, HexFormat.of().formatHex(TestCaller.ak("init-control-plane")));
        p.put(JoinServiceConfig.INIT_NODE_NODE_NAME, INIT);
        p.put(JoinServiceConfig.INIT_NODE_DISK_UUIDS, "33333333-4444-4555-8666-777777777777");
        p.put(JoinServiceConfig.CONTROL_PLANES, String.valueOf(LIMIT));
        p.put("grpc.server.port", "0");
        p.put("logger.levels.dev.sextant", "TRACE");
        change.accept(p);
        ApplicationContext service = ApplicationContext.builder().properties(p).environments("test").start();
        services.add(service);
        GrpcEmbeddedServer server = service.getBean(GrpcEmbeddedServer.class);
        server.start();
        channels.put(name, NettyChannelBuilder.forAddress("127.0.0.1", server.getPort()).usePlaintext().build());
    }

    @AfterAll
    void stop() throws Exception {
        if (root != null) {
            root.detachAppender(logs);
            root.setLevel(rootLevel);
        }
        for (ManagedChannel c : channels.values()) {
            c.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
        services.forEach(ApplicationContext::close);
        if (joined != null) {
            joined.close();
        }
        if (etcd != null) {
            etcd.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    /**
     * A join that retries for a few seconds while etcd does not answer, as the node does: etcd 3.4 may
     * refuse a learner's addition just after another member was removed or promoted.
     */
    private IssueJoinTicketResponse join(String service, String machine, IssueJoinTicketRequest request) throws InterruptedException {
        Instant deadline = Instant.now().plusSeconds(10);
        while (true) {
            try {
                return joinOnce(service, machine, request);
            } catch (StatusRuntimeException e) {
                boolean etcdSilent = e.getStatus().getCode() == Status.Code.UNAVAILABLE
                        && String.valueOf(e.getStatus().getDescription()).startsWith("the cluster store (etcd) did not answer");
                if (!etcdSilent || Instant.now().isAfter(deadline)) {
                    throw e;
                }
                Thread.sleep(100);
            }
        }
    }

    private IssueJoinTicketResponse joinOnce(String service, String machine, IssueJoinTicketRequest request) {
        return TestCaller.as(channels.get(service), TestCaller.ak(machine)).issueJoinTicket(request);
    }

    /** The refusal of a join; its message is kept for the last row. */
    private Status refused(String service, String machine, IssueJoinTicketRequest request) {
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> joinOnce(service, machine, request));
        refusals.add(String.valueOf(e.getStatus().getDescription()));
        return e.getStatus();
    }

    private static IssueJoinTicketRequest controlPlane(String node, String disk, EtcdPeer member) {
        return IssueJoinTicketRequest.newBuilder().setDiskUuid(disk).setNodeName(node).setControlPlane(true)
                .setEtcdMember(member).build();
    }

    /** A control plane's etcd member as its request names it, on loopback ports nothing serves yet. */
    private EtcdPeer member(String node) {
        return EtcdPeer.newBuilder().setName(node).setPeerUrl("https://127.0.0.1:" + ports.next())
                .setClientUrl("https://127.0.0.1:" + ports.next()).build();
    }

    private static String newUuid() {
        return UUID.randomUUID().toString();
    }

    private static String ak(String machine) {
        return HexFormat.of().formatHex(TestCaller.ak(machine));
    }

    /** None of the keys a join would have bound for this machine exists. */
    private void nothingBound(String machine, String disk, String node) {
        String ak = ak(machine);
        for (String key : List.of("bindings/machine/" + ak + "/disk", "bindings/machine/" + ak + "/node",
                "bindings/machine/" + ak + "/role", "control-planes/" + ak, "bindings/node/" + node, "bindings/disk/" + disk)) {
            assertEquals(Optional.empty(), admin.get(V1 + key), key + " was written by a refused join");
        }
    }

    private List<Long> memberIds() {
        return admin.members().stream().map(EtcdMember::id).sorted().toList();
    }

    private List<EtcdMember> withPeerUrl(String peerUrl) {
        return admin.members().stream().filter(m -> m.peerUrls().contains(peerUrl)).toList();
    }

    /** Waits until no learner is listed (an earlier row's is promoted, or removed for never starting). */
    private void awaitNoLearner() throws InterruptedException {
        Instant deadline = Instant.now().plusSeconds(60);
        while (admin.members().stream().anyMatch(EtcdMember::learner)) {
            assertTrue(Instant.now().isBefore(deadline), "a learner is still listed after 60 s: " + admin.members());
            Thread.sleep(100);
        }
    }

    private static Map<String, EtcdPeer> byName(List<EtcdPeer> members) {
        return members.stream().collect(Collectors.toMap(EtcdPeer::getName, m -> m));
    }

    @Test
    @Order(1)
    @DisplayName("a control plane's first join: the ticket carries the files' master secret and salt, the init member and the new one, the signed measurements and the EK CA; the new member is a learner, starts with the ticket's CA and initial cluster, and is promoted to a voter in the background")
    void firstJoin() throws Exception {
        EtcdPeer member = member("cp-1");
        IssueJoinTicketResponse ticket = join("promoting", "cp-1", controlPlane("cp-1", newUuid(), member));
        Instant answered = Instant.now();
        ControlPlaneJoin cp = ticket.getControlPlane();
        assertArrayEquals(cluster.masterSecret, cp.getMasterSecret().toByteArray());
        assertArrayEquals(cluster.masterSalt, cp.getMasterSalt().toByteArray());
        TestEtcdCluster.Member init = etcd.etcd().member(INIT);
        assertEquals(Map.of(INIT, EtcdPeer.newBuilder().setName(INIT).setPeerUrl(init.peerUrl()).setClientUrl(init.clientUrl()).build(),
                "cp-1", EtcdPeer.newBuilder().setName("cp-1").setPeerUrl(member.getPeerUrl()).build()), byName(cp.getEtcdMembersList()));
        assertArrayEquals(Files.readAllBytes(cluster.measurements), cp.getJoinMeasurements().getJson().toByteArray());
        assertArrayEquals(Files.readAllBytes(MeasurementsFile.signatureFile(cluster.measurements)),
                cp.getJoinMeasurements().getSignature().toByteArray());
        assertEquals(Files.readString(cluster.measurementsPublicKey), cp.getJoinMeasurements().getPublicKeyPem());
        assertEquals(Files.readString(cluster.ekCa), cp.getEkCaPem());
        List<EtcdMember> learner = withPeerUrl(member.getPeerUrl());
        assertEquals(1, learner.size(), admin.members().toString());
        assertTrue(learner.get(0).learner());

        // The node's side, with nothing but the ticket: its CA from the ticket's master secret, its
        // initial cluster from the ticket's members, the URLs it asked for.
        joined = new TestEtcdCluster(dir.resolve("cp-1"), etcdCaSeed(cp.getMasterSecret().toByteArray(), cp.getMasterSalt().toByteArray()));
        EtcdTlsFiles tls = EtcdTlsFiles.write(dir.resolve("cp-1/tls"), "cp-1", joined.ca().certificate(), joined.ca().issueMember(
                "cp-1", List.of(), List.of(InetAddress.getLoopbackAddress()), Instant.now(), EtcdCa.DEFAULT_VALIDITY));
        Map<String, String> initialCluster = new LinkedHashMap<>();
        cp.getEtcdMembersList().forEach(m -> initialCluster.put(m.getName(), m.getPeerUrl()));
        Instant starting = Instant.now();
        joined.start(EtcdMemberConfig.joining("cp-1", dir.resolve("cp-1/data"), member.getClientUrl(), member.getPeerUrl(),
                initialCluster, TestEtcdCluster.TOKEN, tls));
        Instant deadline = starting.plusSeconds(60);
        while (withPeerUrl(member.getPeerUrl()).get(0).learner()) {
            assertTrue(Instant.now().isBefore(deadline), "not promoted within 60 s:\n" + etcd.logs() + joined.logs());
            Thread.sleep(100);
        }
        Instant promoted = Instant.now();
        System.out.printf("ControlPlaneJoinTest: the joining member's etcd started -> promoted to a voter in %.2f s (%.2f s after the ticket)%n",
                Duration.between(starting, promoted).toMillis() / 1000.0, Duration.between(answered, promoted).toMillis() / 1000.0);
        assertEquals("cp-1", withPeerUrl(member.getPeerUrl()).get(0).name());
        assertEquals(2, admin.members().stream().filter(m -> !m.learner()).count());
    }

    @Test
    @Order(2)
    @DisplayName("a worker's ticket carries no ControlPlaneJoin (no master secret); a worker's request naming an etcd member is refused INVALID_ARGUMENT, nothing bound, no learner added")
    void worker() throws Exception {
        IssueJoinTicketRequest worker = IssueJoinTicketRequest.newBuilder().setDiskUuid(newUuid()).setNodeName("worker-1").build();
        assertFalse(join("promoting", "worker-1", worker).hasControlPlane());

        List<Long> members = memberIds();
        String disk = newUuid();
        Status s = refused("promoting", "worker-2", IssueJoinTicketRequest.newBuilder().setDiskUuid(disk).setNodeName("worker-2")
                .setEtcdMember(member("worker-2")).build());
        assertEquals(Status.Code.INVALID_ARGUMENT, s.getCode(), s.toString());
        assertTrue(s.getDescription().contains("a worker runs no etcd member"), s.getDescription());
        nothingBound("worker-2", disk, "worker-2");
        assertEquals(members, memberIds());
    }

    /** A request whose {@code field} is wrong. */
    private record Malformed(String field, IssueJoinTicketRequest request) {
    }

    @Test
    @Order(3)
    @DisplayName("a control plane's request without an etcd member, naming another node's member, or with a URL not https://HOST:PORT (http, a path, a ',' that would add a member to etcd's initial cluster): INVALID_ARGUMENT, nothing bound, no learner added")
    void malformedMember() {
        List<Long> members = memberIds();
        EtcdPeer good = member("cp-bad");
        List<Malformed> requests = List.of(
                new Malformed("etcd_member", IssueJoinTicketRequest.newBuilder().setNodeName("cp-bad").setControlPlane(true).build()),
                new Malformed("etcd_member.name", controlPlane("cp-bad", "", good.toBuilder().setName("cp-1").build())),
                new Malformed("etcd_member.peer_url", controlPlane("cp-bad", "",
                        good.toBuilder().setPeerUrl(good.getPeerUrl().replace("https", "http")).build())),
                new Malformed("etcd_member.client_url", controlPlane("cp-bad", "", good.toBuilder().setClientUrl(good.getClientUrl() + "/v3").build())),
                new Malformed("etcd_member.peer_url", controlPlane("cp-bad", "",
                        good.toBuilder().setPeerUrl(good.getPeerUrl() + ",cp-1=https://10.0.0.9:2380").build())));
        for (Malformed bad : requests) {
            String disk = newUuid();
            Status s = refused("promoting", "cp-bad", bad.request().toBuilder().setDiskUuid(disk).build());
            assertEquals(Status.Code.INVALID_ARGUMENT, s.getCode(), bad.field() + ": " + s);
            assertTrue(s.getDescription().contains(bad.field()), bad.field() + ": " + s.getDescription());
            nothingBound("cp-bad", disk, "cp-bad");
        }
        assertEquals(members, memberIds());
    }

    @Test
    @Order(4)
    @DisplayName("a join service without the master secret refuses a control plane FAILED_PRECONDITION, nothing bound, no learner added")
    void noMasterSecret() {
        List<Long> members = memberIds();
        String disk = newUuid();
        Status s = refused("no-secret", "cp-nowhere", controlPlane("cp-nowhere", disk, member("cp-nowhere")));
        assertEquals(Status.Code.FAILED_PRECONDITION, s.getCode(), s.toString());
        assertTrue(s.getDescription().contains("holds no master secret"), s.getDescription());
        nothingBound("cp-nowhere", disk, "cp-nowhere");
        assertEquals(members, memberIds());
    }

    @Test
    @Order(5)
    @DisplayName("a retried control-plane join (same AK, same request) gets its ticket again, with the same single learner and no second member")
    void retriedJoin() throws Exception {
        awaitNoLearner();
        int before = admin.members().size();
        IssueJoinTicketRequest request = controlPlane("cp-retry", newUuid(), member("cp-retry"));
        ControlPlaneJoin first = join("short", "cp-retry", request).getControlPlane();
        ControlPlaneJoin again = join("short", "cp-retry", request).getControlPlane();
        assertEquals(byName(first.getEtcdMembersList()), byName(again.getEtcdMembersList()));
        assertEquals(1, withPeerUrl(request.getEtcdMember().getPeerUrl()).size());
        assertEquals(before + 1, admin.members().size(), admin.members().toString());
    }

    @Test
    @Order(6)
    @DisplayName("while one control plane's learner is pending (never started), a second's join is refused UNAVAILABLE naming that one control plane joins etcd at a time; once the pending learner's timeout has passed it is removed, and the second's retry goes through")
    void oneLearnerAtATime() throws Exception {
        awaitNoLearner();
        EtcdPeer pending = member("cp-pending");
        join("short", "cp-pending", controlPlane("cp-pending", newUuid(), pending));
        Instant added = Instant.now();

        IssueJoinTicketRequest second = controlPlane("cp-second", newUuid(), member("cp-second"));
        Status s = refused("promoting", "cp-second", second);
        assertEquals(Status.Code.UNAVAILABLE, s.getCode(), s.toString());
        assertTrue(s.getDescription().contains("one control plane at a time"), s.getDescription());
        assertTrue(s.getDescription().contains(pending.getPeerUrl()), "names the pending member: " + s.getDescription());
        assertEquals(List.of(), withPeerUrl(second.getEtcdMember().getPeerUrl()));

        Instant deadline = added.plusSeconds(30);
        while (!withPeerUrl(pending.getPeerUrl()).isEmpty()) {
            assertTrue(Instant.now().isBefore(deadline), "the never-started learner is still listed after 30 s");
            Thread.sleep(100);
        }
        System.out.printf("ControlPlaneJoinTest: a never-started learner removed %.2f s after its ticket (timeout %d s)%n",
                Duration.between(added, Instant.now()).toMillis() / 1000.0, SHORT_TIMEOUT.toSeconds());
        assertTrue(join("short", "cp-second", second).hasControlPlane(), "the retry, through any join service");
        assertEquals(1, withPeerUrl(second.getEtcdMember().getPeerUrl()).size());
    }

    @Test
    @Order(7)
    @DisplayName("a never-started learner whose join service stopped before it could remove it (added to etcd directly here) refuses the next control plane UNAVAILABLE, and the join service that refused it removes it once the timeout has passed; the retry goes through")
    void orphanedLearner() throws Exception {
        awaitNoLearner();
        String orphanUrl = "https://127.0.0.1:" + ports.next();
        admin.addLearner(List.of(orphanUrl));
        Instant seen = Instant.now();
        IssueJoinTicketRequest request = controlPlane("cp-after-orphan", newUuid(), member("cp-after-orphan"));
        Status s = refused("short", "cp-after-orphan", request);
        assertEquals(Status.Code.UNAVAILABLE, s.getCode(), s.toString());
        assertTrue(s.getDescription().contains(orphanUrl), s.getDescription());

        Instant deadline = seen.plusSeconds(30);
        while (!withPeerUrl(orphanUrl).isEmpty()) {
            assertTrue(Instant.now().isBefore(deadline), "the orphaned learner is still listed after 30 s");
            Thread.sleep(100);
        }
        assertTrue(join("short", "cp-after-orphan", request).hasControlPlane());
    }

    @Test
    @Order(8)
    @DisplayName("a control plane naming the peer URL of another started member (the init control plane's) is refused ALREADY_EXISTS and etcd's membership is unchanged")
    void anotherMembersPeerUrl() throws Exception {
        awaitNoLearner();
        List<Long> members = memberIds();
        EtcdPeer usurper = member("cp-usurper").toBuilder().setPeerUrl(etcd.etcd().member(INIT).peerUrl()).build();
        Status s = refused("promoting", "cp-usurper", controlPlane("cp-usurper", newUuid(), usurper));
        assertEquals(Status.Code.ALREADY_EXISTS, s.getCode(), s.toString());
        assertTrue(s.getDescription().contains("is etcd member " + INIT + "'s"), s.getDescription());
        assertEquals(members, memberIds());
    }

    @Test
    @Order(9)
    @DisplayName("a control plane beyond the limit (every place taken) is refused FAILED_PRECONDITION (CONTROL_PLANE_LIMIT_REACHED), nothing bound and no learner added")
    void beyondTheLimit() throws Exception {
        awaitNoLearner();
        // The places the other join services of the cluster gave out meanwhile.
        for (long admitted = admin.count(V1 + "control-planes/").count(); admitted < LIMIT; admitted++) {
            admin.put(V1 + "control-planes/" + ak("elsewhere-" + admitted), "elsewhere-" + admitted);
        }
        List<Long> members = memberIds();
        String disk = newUuid();
        Status s = refused("promoting", "cp-too-many", controlPlane("cp-too-many", disk, member("cp-too-many")));
        assertEquals(Status.Code.FAILED_PRECONDITION, s.getCode(), s.toString());
        assertTrue(s.getDescription().contains("at most " + LIMIT + " control planes"), s.getDescription());
        nothingBound("cp-too-many", disk, "cp-too-many");
        assertEquals(members, memberIds());
    }

    @Test
    @Order(10)
    @DisplayName("the master secret and its salt appear in no log line of the whole class (every logger at TRACE) and in no refusal's message")
    void masterSecretNeverShown() {
        List<String> lines = logs.list.stream().map(LogLeakTest::render).toList();
        assertTrue(lines.stream().anyMatch(l -> l.contains("etcd learner")), "the capture works");
        assertTrue(refusals.size() >= 8, "the refusals were kept: " + refusals);
        List<String> secrets = new ArrayList<>(LogLeakTest.encodings(cluster.masterSecret));
        secrets.addAll(LogLeakTest.encodings(cluster.masterSalt));
        for (String secret : secrets) {
            assertFalse(lines.stream().anyMatch(l -> l.contains(secret)), "a log line contains " + secret);
            assertFalse(refusals.stream().anyMatch(r -> r.contains(secret)), "a refusal contains " + secret);
        }
    }
}
