package dev.sextant.joinapi.attacks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sextant.etcd.client.EtcdClient;
import dev.sextant.joinapi.TestCaller;
import dev.sextant.joinapi.TestCluster;
import dev.sextant.joinapi.TestClusterStore;
import dev.sextant.proto.v1.EtcdPeer;
import dev.sextant.proto.v1.IssueJoinTicketRequest;
import dev.sextant.serviceconfig.JoinServiceConfig;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.NettyChannelBuilder;
import io.micronaut.context.ApplicationContext;
import io.micronaut.grpc.server.GrpcEmbeddedServer;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Attacks on the bindings through the cluster store itself: two join services sharing one real
 * three-member etcd (as the join services of two control planes do), both started with the same init
 * node and a limit of three control planes. Rows run in order: the places the control planes take stay
 * taken, and the last row takes etcd's quorum away.
 */
@DisplayName("Attacks on the bindings through the cluster store: racing join services, the control-plane limit, a lost quorum")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ClusterStoreAttacksTest {
    private static final String V1 = "/sextant/v1/";
    private static final byte[] INIT_AK = TestCaller.ak("store-init-node");
    private static final String INIT_DISK = "22222222-3333-4444-8555-666666666666";
    private static final int LIMIT = 3;
    /** etcd did not answer: a node retries. */
    private static final Predicate<Status> TRANSIENT = s -> s.getCode() == Status.Code.UNAVAILABLE
            && String.valueOf(s.getDescription()).startsWith("the cluster store (etcd) did not answer");

    private TestCluster cluster;
    private TestClusterStore etcd;
    private EtcdClient admin;
    private final List<ApplicationContext> services = new ArrayList<>();
    private final List<ManagedChannel> channels = new ArrayList<>();

    @BeforeAll
    void start() throws Exception {
        cluster = new TestCluster();
        etcd = new TestClusterStore(3);
        admin = etcd.admin();
        for (String name : List.of("join-a", "join-b")) {
            ApplicationContext service = ApplicationContext.run(properties(name, INIT_AK), "test");
            services.add(service);
            GrpcEmbeddedServer server = service.getBean(GrpcEmbeddedServer.class);
            server.start();
            channels.add(NettyChannelBuilder.forAddress("127.0.0.1", server.getPort()).usePlaintext().build());
        }
    }

    private Map<String, Object> properties(String name, byte[] initAk) {
        Map<String, Object> p = new HashMap<>(etcd.joinService(cluster, name));
        p.put(JoinServiceConfig.INIT_NODE_AK_NAME, HexFormat.of().formatHex(initAk));
        p.put(JoinServiceConfig.INIT_NODE_NODE_NAME, "store-cp-0");
        p.put(JoinServiceConfig.INIT_NODE_DISK_UUIDS, INIT_DISK);
        p.put(JoinServiceConfig.CONTROL_PLANES, String.valueOf(LIMIT));
        p.put("grpc.server.port", "0");
        return p;
    }

    @AfterAll
    void stop() throws Exception {
        for (ManagedChannel c : channels) {
            c.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
        services.forEach(ApplicationContext::close);
        if (cluster != null) {
            cluster.close();
        }
        if (etcd != null) {
            etcd.close();
        }
    }

    /**
     * A join through service {@code s} (0 or 1) as {@code machine}: OK, or the refusal's status. A control
     * plane retries for a few seconds while etcd does not answer, as the node does: etcd 3.4 may refuse a
     * learner's addition just after another member was removed (its membership not yet applied everywhere).
     */
    private Status join(int s, String machine, String disk, String node, boolean controlPlane) {
        Instant deadline = Instant.now().plusSeconds(10);
        Status status = joinOnce(s, machine, disk, node, controlPlane);
        while (controlPlane && TRANSIENT.test(status) && Instant.now().isBefore(deadline)) {
            status = joinOnce(s, machine, disk, node, controlPlane);
        }
        return status;
    }

    private Status joinOnce(int s, String machine, String disk, String node, boolean controlPlane) {
        try {
            IssueJoinTicketRequest.Builder request = IssueJoinTicketRequest.newBuilder().setDiskUuid(disk).setNodeName(node);
            if (controlPlane) {
                request.setControlPlane(true).setEtcdMember(EtcdPeer.newBuilder().setName(node)
                        .setPeerUrl("https://etcd-" + node + ".internal.test:2380").setClientUrl("https://etcd-" + node + ".internal.test:2379"));
            }
            TestCaller.as(channels.get(s), TestCaller.ak(machine)).issueJoinTicket(request.build());
            return Status.OK;
        } catch (StatusRuntimeException e) {
            return e.getStatus();
        }
    }

    private static String newUuid() {
        return UUID.randomUUID().toString();
    }

    private static String ak(String machine) {
        return HexFormat.of().formatHex(TestCaller.ak(machine));
    }

    /** Runs the calls at once (released together) and returns their statuses in order. */
    private static List<Status> together(List<Callable<Status>> calls) throws Exception {
        CyclicBarrier start = new CyclicBarrier(calls.size());
        ExecutorService pool = Executors.newFixedThreadPool(calls.size());
        try {
            List<Future<Status>> futures = new ArrayList<>();
            for (Callable<Status> call : calls) {
                futures.add(pool.submit(() -> {
                    start.await();
                    return call.call();
                }));
            }
            List<Status> statuses = new ArrayList<>();
            for (Future<Status> f : futures) {
                statuses.add(f.get());
            }
            return statuses;
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * Removes the etcd learners the admitted control planes added: their members never start here, and
     * etcd admits one learner at a time (the join service removes one after five minutes).
     */
    private void removeLearners() {
        admin.members().stream().filter(m -> m.learner()).forEach(m -> admin.remove(m.id()));
    }

    /** The keys of a machine that was refused: none may exist. */
    private void nothingBound(String machine, String disk, String node) {
        String ak = ak(machine);
        for (String key : List.of("bindings/machine/" + ak + "/disk", "bindings/machine/" + ak + "/node",
                "bindings/machine/" + ak + "/role", "control-planes/" + ak, "bindings/node/" + node)) {
            assertEquals(Optional.empty(), admin.get(V1 + key), key + " was written by a refused join");
        }
        if (disk != null) {
            assertEquals(Optional.empty(), admin.get(V1 + "bindings/disk/" + disk), "the refused join's disk was bound");
        }
    }

    @Test
    @Order(1)
    @DisplayName("two joiners racing for one disk through two join services sharing etcd (10 rounds): exactly one gets the ticket, the other is refused PERMISSION_DENIED (DISK_BOUND_ELSEWHERE) and nothing of it is bound")
    void diskRace() throws Exception {
        for (int round = 0; round < 10; round++) {
            String disk = newUuid();
            String a = "disk-racer-a-" + round;
            String b = "disk-racer-b-" + round;
            List<Status> s = together(List.of(() -> join(0, a, disk, a, false), () -> join(1, b, disk, b, false)));
            assertEquals(1, s.stream().filter(Status::isOk).count(), "round " + round + ": " + s);
            String winner = s.get(0).isOk() ? a : b;
            String loser = s.get(0).isOk() ? b : a;
            Status lost = s.get(0).isOk() ? s.get(1) : s.get(0);
            assertEquals(Status.Code.PERMISSION_DENIED, lost.getCode(), lost.toString());
            assertTrue(lost.getDescription().contains("disk " + disk + " belongs to another machine"), lost.getDescription());
            assertEquals(Optional.of(ak(winner)), admin.get(V1 + "bindings/disk/" + disk));
            nothingBound(loser, null, loser);
        }
    }

    @Test
    @Order(2)
    @DisplayName("control planes racing for the last place through two join services: one is admitted, the others are refused FAILED_PRECONDITION naming the limit")
    void lastPlaceRace() throws Exception {
        assertTrue(join(0, "store-cp-1", newUuid(), "store-cp-1", true).isOk(), "the second of three places");
        removeLearners();
        List<Callable<Status>> racers = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            String machine = "last-place-" + i;
            int service = i % 2;
            racers.add(() -> join(service, machine, newUuid(), machine, true));
        }
        List<Status> s = together(racers);
        assertEquals(1, s.stream().filter(Status::isOk).count(), s.toString());
        for (int i = 0; i < s.size(); i++) {
            if (!s.get(i).isOk()) {
                assertEquals(Status.Code.FAILED_PRECONDITION, s.get(i).getCode(), s.get(i).toString());
                assertTrue(s.get(i).getDescription().contains("at most " + LIMIT + " control planes"), s.get(i).getDescription());
                nothingBound("last-place-" + i, null, "last-place-" + i);
            }
        }
        assertEquals(LIMIT, admin.count(V1 + "control-planes/").count());
        removeLearners();
    }

    @Test
    @Order(3)
    @DisplayName("a control-plane ticket beyond the limit: FAILED_PRECONDITION naming the limit and sextant init --control-planes, nothing bound; an admitted control plane still joins again, a worker still joins")
    void beyondTheLimit() {
        String disk = newUuid();
        Status s = join(1, "one-too-many", disk, "one-too-many", true);
        assertEquals(Status.Code.FAILED_PRECONDITION, s.getCode(), s.toString());
        assertTrue(s.getDescription().contains("at most " + LIMIT + " control planes and has " + LIMIT), s.getDescription());
        assertTrue(s.getDescription().contains("sextant init --control-planes"), s.getDescription());
        nothingBound("one-too-many", disk, "one-too-many");
        String cp1Disk = admin.get(V1 + "bindings/machine/" + ak("store-cp-1") + "/disk").orElseThrow();
        assertTrue(join(1, "store-cp-1", cp1Disk, "store-cp-1", true).isOk(), "a retried join of an admitted control plane");
        removeLearners();
        assertTrue(join(0, "store-worker", newUuid(), "store-worker", false).isOk());
    }

    @Test
    @Order(4)
    @DisplayName("a join service whose init node's disk another AK holds in etcd: refuses to start, naming the conflict")
    void initDiskTaken() {
        RuntimeException e = assertThrows(RuntimeException.class, () -> {
            try (ApplicationContext other = ApplicationContext.run(properties("join-c", TestCaller.ak("usurper")), "test")) {
                other.getBean(dev.sextant.joinapi.binding.InitNodeClaim.class);
            }
        });
        StringBuilder messages = new StringBuilder();
        for (Throwable c = e; c != null; c = c.getCause()) {
            messages.append(c.getMessage()).append(" | ");
        }
        assertTrue(messages.toString().contains("disk " + INIT_DISK + " belongs to another machine"), messages.toString());
        assertEquals(Optional.of(HexFormat.of().formatHex(INIT_AK)), admin.get(V1 + "bindings/disk/" + INIT_DISK));
    }

    @Test
    @Order(5)
    @DisplayName("the etcd leader's control plane lost (its member killed) under a join service that asked that member first: first joins go on through the others (the time to the next successful one is printed), and the member started again on its data is a voting member again")
    void leaderLost() throws Exception {
        String leader = leaderName();
        Map<String, Object> leaderFirst = properties("join-d", INIT_AK);
        List<String> urls = new ArrayList<>(List.of(((String) leaderFirst.get(JoinServiceConfig.ETCD_ENDPOINTS)).split(",")));
        String leaderUrl = etcd.etcd().member(leader).clientUrl();
        urls.remove(leaderUrl);
        urls.add(0, leaderUrl);
        leaderFirst.put(JoinServiceConfig.ETCD_ENDPOINTS, String.join(",", urls));
        try (ApplicationContext service = ApplicationContext.run(leaderFirst, "test")) {
            GrpcEmbeddedServer server = service.getBean(GrpcEmbeddedServer.class);
            server.start();
            ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", server.getPort()).usePlaintext().build();
            channels.add(channel);
            int s = channels.size() - 1;
            assertTrue(join(s, "before-leader-lost", newUuid(), "before-leader-lost", false).isOk());

            etcd.kill(leader);
            Instant lost = Instant.now();
            String machine = "after-leader-lost";
            String disk = newUuid();
            Status status = join(s, machine, disk, machine, false);
            while (!status.isOk()) {
                assertEquals(Status.Code.UNAVAILABLE, status.getCode(), status.toString());
                assertTrue(Duration.between(lost, Instant.now()).compareTo(Duration.ofSeconds(60)) < 0,
                        "no first join within 60 s of losing the leader: " + status + "\n" + etcd.logs());
                Thread.sleep(100);
                status = join(s, machine, disk, machine, false);
            }
            Duration took = Duration.between(lost, Instant.now());
            System.out.printf("ClusterStoreAttacksTest: etcd leader %s killed -> next successful first join: %.2f s "
                    + "(the join service waits %d s for each member)%n", leader, took.toMillis() / 1000.0,
                    TestClusterStore.JOIN_SERVICE_DEADLINE.toSeconds());
            assertEquals(Optional.of(ak(machine)), admin.get(V1 + "bindings/disk/" + disk));
        }

        etcd.restart(leader);
        String endpoint = etcd.etcd().member(leader).clientEndpoint();
        Instant deadline = Instant.now().plusSeconds(30);
        while (admin.status(endpoint).learner() || admin.status(endpoint).raftAppliedIndex() < admin.status(
                etcd.etcd().member(leaderName()).clientEndpoint()).raftAppliedIndex()) {
            assertTrue(Instant.now().isBefore(deadline), leader + " did not catch up within 30 s:\n" + etcd.logs());
            Thread.sleep(100);
        }
        assertEquals(3, admin.members().stream().filter(m -> !m.learner()).count(), "three voting members again");
    }

    /** The name of the member the others follow. */
    private String leaderName() {
        for (String name : etcd.memberNames()) {
            var status = admin.status(etcd.etcd().member(name).clientEndpoint());
            if (status.memberId() == status.leaderId()) {
                return name;
            }
        }
        throw new AssertionError("no member leads:\n" + etcd.logs());
    }

    @Test
    @Order(6)
    @DisplayName("etcd without quorum (two of three members stopped): the join is refused UNAVAILABLE naming the cluster store, and after quorum returns nothing of that attempt is bound")
    void lostQuorum() throws Exception {
        List<String> members = etcd.memberNames();
        for (String name : members.subList(1, 3)) {
            etcd.stop(name);
        }
        String survivor = etcd.etcd().member(members.get(0)).clientEndpoint();
        Instant deadline = Instant.now().plusSeconds(20);
        while (admin.status(survivor).leaderId() != 0) {
            assertTrue(Instant.now().isBefore(deadline), "the last member still follows a leader");
            Thread.sleep(100);
        }
        String disk = newUuid();
        Status s = join(0, "quorum-lost", disk, "quorum-lost", false);
        assertEquals(Status.Code.UNAVAILABLE, s.getCode(), s.toString());
        assertTrue(s.getDescription().startsWith("the cluster store (etcd) did not answer"), s.getDescription());

        for (String name : members.subList(1, 3)) {
            etcd.restart(name);
        }
        deadline = Instant.now().plusSeconds(20);
        while (true) {
            try {
                admin.put("/sextant-test/quorum", "back");
                break;
            } catch (RuntimeException stillDown) {
                assertTrue(Instant.now().isBefore(deadline), "no quorum 20 s after the restart:\n" + etcd.logs());
                Thread.sleep(100);
            }
        }
        nothingBound("quorum-lost", disk, "quorum-lost");
        assertTrue(join(0, "quorum-lost", disk, "quorum-lost", false).isOk(), "the node's retry, once etcd is back");
    }
}
