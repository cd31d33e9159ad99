package dev.sextant.joinapi.binding;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sextant.etcd.client.EtcdClient;
import dev.sextant.etcd.client.EtcdClientConfig;
import dev.sextant.etcd.client.EtcdException;
import dev.sextant.etcd.pki.EtcdTlsFiles;
import dev.sextant.etcd.testkit.LoopbackPorts;
import dev.sextant.grpcsupport.Refusal;
import dev.sextant.joinapi.TestCaller;
import dev.sextant.joinapi.TestCluster;
import dev.sextant.joinapi.TestClusterStore;
import dev.sextant.joinapi.clusterstore.EtcdConnection;
import dev.sextant.joinapi.refusal.JoinRefusal;
import dev.sextant.proto.v1.IssueJoinTicketRequest;
import dev.sextant.serviceconfig.JoinServiceConfig;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.NettyChannelBuilder;
import io.micronaut.context.ApplicationContext;
import io.micronaut.grpc.server.GrpcEmbeddedServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

@DisplayName("Bindings in etcd: the agreed keys, the round trips of a join, etcd's failures as UNAVAILABLE")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class EtcdBindingStoreTest {
    private static final String V1 = "/sextant/v1/";

    private TestClusterStore etcd;
    private EtcdConnection connection;
    private EtcdBindingStore store;
    private EtcdClient admin;

    @BeforeAll
    void start() {
        etcd = new TestClusterStore(1);
        admin = etcd.admin();
        connection = new EtcdConnection(config(List.of(etcd.etcd().member("etcd-0").clientEndpoint()), etcd.etcd().clientTls("join-service")));
        store = new EtcdBindingStore(connection);
    }

    @AfterAll
    void stop() throws Exception {
        if (connection != null) {
            connection.close();
        }
        if (etcd != null) {
            etcd.close();
        }
    }

    private static EtcdClientConfig config(List<String> endpoints, EtcdTlsFiles tls) {
        return new EtcdClientConfig(endpoints, tls, Duration.ofSeconds(2));
    }

    private static String disk() {
        return UUID.randomUUID().toString();
    }

    private static String ak() {
        return UUID.randomUUID().toString().replace("-", "");
    }

    private long roundTrips(ThrowingRun run) throws Exception {
        long before = store.roundTrips();
        run.run();
        return store.roundTrips() - before;
    }

    @FunctionalInterface
    private interface ThrowingRun {
        void run() throws Exception;
    }

    @Test
    @DisplayName("a worker's first join writes docs/cluster-store.md's five keys in 1 round trip; the retried join costs 1")
    void workerKeysAndRoundTrips() throws Exception {
        Bindings bindings = new Bindings(store, 3);
        String ak = ak();
        String disk = disk();
        MachineClaim claim = new MachineClaim(ak, false, disk, "worker-" + ak.substring(0, 8), List.of());
        assertEquals(1, roundTrips(() -> bindings.claim(claim)));
        assertEquals(Optional.of(ak), admin.get(V1 + "bindings/disk/" + disk));
        assertEquals(Optional.of(ak), admin.get(V1 + "bindings/node/" + claim.nodeName()));
        assertEquals(Optional.of(disk), admin.get(V1 + "bindings/machine/" + ak + "/disk"));
        assertEquals(Optional.of(claim.nodeName()), admin.get(V1 + "bindings/machine/" + ak + "/node"));
        assertEquals(Optional.of("worker"), admin.get(V1 + "bindings/machine/" + ak + "/role"));
        assertEquals(1, roundTrips(() -> bindings.claim(claim)));
        assertEquals(1, roundTrips(() -> assertTrue(bindings.ownsDisk(java.util.HexFormat.of().parseHex(ak), disk))));
    }

    @Test
    @DisplayName("a control plane's first join costs 2 round trips (count, transaction) once the limit is known, 3 while it is read; its retried join 2")
    void controlPlaneRoundTrips() throws Exception {
        Bindings initService = new Bindings(store, 7);
        String initAk = ak();
        assertEquals(1, roundTrips(() -> initService.claimInitNode(new MachineClaim(initAk, true, disk(), "cp-" + initAk.substring(0, 8),
                List.of(disk())))));
        assertEquals(Optional.of("cp-" + initAk.substring(0, 8)), admin.get(V1 + "control-planes/" + initAk));
        assertEquals(Optional.of("7"), admin.get(V1 + "cluster/control-planes"));

        MachineClaim cp = new MachineClaim(ak(), true, disk(), "cp-second", List.of());
        assertEquals(2, roundTrips(() -> initService.claim(cp)));
        assertEquals(2, roundTrips(() -> initService.claim(cp)));

        Bindings otherService = new Bindings(store, 3);
        MachineClaim third = new MachineClaim(ak(), true, disk(), "cp-third", List.of());
        assertEquals(3, roundTrips(() -> otherService.claim(third)), "the stored limit is read once");
        assertEquals(7, otherService.controlPlaneLimit(), "the cluster's limit, not this service's setting");
        MachineClaim fourth = new MachineClaim(ak(), true, disk(), "cp-fourth", List.of());
        assertEquals(2, roundTrips(() -> otherService.claim(fourth)));
    }

    @Test
    @DisplayName("the guard: a transaction counted before a control plane was admitted writes nothing and says why; counted after, it writes")
    void guard() throws Exception {
        BindingStore.Admitted before = store.controlPlanes();
        assertInstanceOf(BindingStore.AllCreated.class, store.createAll(Map.of(BindingKey.controlPlane(ak()), "cp-guard-1"), OptionalLong.empty()));
        BindingKey late = BindingKey.controlPlane(ak());
        BindingStore.NoneCreated refused = assertInstanceOf(BindingStore.NoneCreated.class,
                store.createAll(Map.of(late, "cp-guard-2"), OptionalLong.of(before.revision())));
        assertEquals(Map.of(), refused.present());
        assertTrue(refused.controlPlanesChanged());
        BindingStore.Admitted after = store.controlPlanes();
        assertEquals(before.count() + 1, after.count());
        assertInstanceOf(BindingStore.AllCreated.class, store.createAll(Map.of(late, "cp-guard-2"), OptionalLong.of(after.revision())));
    }

    @Test
    @DisplayName("a claim refused on etcd writes none of its keys")
    void refusedClaimWritesNothing() throws Exception {
        Bindings bindings = new Bindings(store, 3);
        String owner = ak();
        String disk = disk();
        bindings.claim(new MachineClaim(owner, false, disk, "owner-" + owner.substring(0, 8), List.of()));
        String intruder = ak();
        Refusal r = assertThrows(Refusal.class, () -> bindings.claim(new MachineClaim(intruder, false, disk, "intruder", List.of())));
        assertEquals(JoinRefusal.DISK_BOUND_ELSEWHERE, r.reason());
        for (String key : List.of("bindings/machine/" + intruder + "/disk", "bindings/machine/" + intruder + "/node",
                "bindings/machine/" + intruder + "/role", "bindings/node/intruder")) {
            assertEquals(Optional.empty(), admin.get(V1 + key), key);
        }
    }

    @Test
    @DisplayName("etcd not answering: UNAVAILABLE naming the cluster store, no key, no value and no endpoint in the message; etcd's own words in the cause")
    void unreachable() {
        int nothing = new LoopbackPorts().next();
        try (EtcdConnection deadEnd = new EtcdConnection(config(List.of("127.0.0.1:" + nothing), etcd.etcd().clientTls("dead-end")))) {
            EtcdBindingStore dead = new EtcdBindingStore(deadEnd);
            Refusal r = assertThrows(Refusal.class, () -> dead.createAll(Map.of(BindingKey.disk("0a000000-0000-4000-8000-00000000000a"),
                    "secret-looking-value"), OptionalLong.empty()));
            assertEquals(JoinRefusal.CLUSTER_STORE_UNAVAILABLE, r.reason());
            assertEquals(Status.Code.UNAVAILABLE, r.toStatus().getStatus().getCode());
            assertTrue(r.getMessage().startsWith("the cluster store (etcd) did not answer"), r.getMessage());
            for (String leak : List.of("secret-looking-value", "0a000000", "127.0.0.1", String.valueOf(nothing))) {
                assertFalse(r.getMessage().contains(leak), r.getMessage());
            }
            assertInstanceOf(EtcdException.class, r.getCause());
            assertTrue(r.getCause().getMessage().contains("127.0.0.1:" + nothing), "the log names the endpoint");
        }
    }

    @Test
    @DisplayName("no client certificate yet: the store is made (the service starts) and each call is UNAVAILABLE naming etcd")
    void noCertificateYet(@org.junit.jupiter.api.io.TempDir Path dir) {
        EtcdTlsFiles absent = new EtcdTlsFiles(dir.resolve("ca.crt"), dir.resolve("client.crt"), dir.resolve("client.key"));
        try (EtcdConnection noCertificate = new EtcdConnection(config(List.of("127.0.0.1:2379"), absent))) {
            EtcdBindingStore store = new EtcdBindingStore(noCertificate);
            Refusal r = assertThrows(Refusal.class, () -> store.lookup(BindingKey.node("worker-1")));
            assertEquals(Status.Code.UNAVAILABLE, r.toStatus().getStatus().getCode());
            assertTrue(r.getMessage().contains("cluster store (etcd)"), r.getMessage());
            assertEquals(0, store.roundTrips());
        }
    }

    @Test
    @DisplayName("the service's etcd settings: https URLs become the client's host:port list, the three files its TLS, the deadline its call timeout")
    void settings() {
        JoinServiceConfig.Etcd settings = new JoinServiceConfig.Etcd(List.of("https://10.0.0.1:2379", "https://cp-1.internal:12379/"),
                Path.of("/e/ca.crt"), Path.of("/e/c.crt"), Path.of("/e/c.key"), Duration.ofSeconds(3));
        EtcdClientConfig client = EtcdConnection.clientConfig(settings);
        assertEquals(List.of("10.0.0.1:2379", "cp-1.internal:12379"), client.endpoints());
        assertEquals(new EtcdTlsFiles(Path.of("/e/ca.crt"), Path.of("/e/c.crt"), Path.of("/e/c.key")), client.tls());
        assertEquals(Duration.ofSeconds(3), client.callTimeout());
        assertThrows(IllegalStateException.class, () -> EtcdConnection.clientConfig(new JoinServiceConfig.Etcd(List.of("https://10.0.0.1"),
                Path.of("/e/ca.crt"), Path.of("/e/c.crt"), Path.of("/e/c.key"), Duration.ofSeconds(3))));
    }

    @Test
    @DisplayName("the service's store makes its etcd client at the first call and closes it when the service stops")
    void clientClosedOnShutdown() throws Exception {
        try (TestCluster cluster = new TestCluster()) {
            Map<String, Object> p = new HashMap<>(etcd.joinService(cluster, "closing"));
            EtcdBindingStore inService;
            try (ApplicationContext ctx = ApplicationContext.run(p, "test")) {
                inService = ctx.getBean(EtcdBindingStore.class);
                assertEquals(0, inService.roundTrips(), "no client before the first call");
                assertEquals(Optional.empty(), inService.lookup(BindingKey.node("nobody")));
                assertEquals(1, inService.roundTrips());
            }
            assertEquals(0, inService.roundTrips(), "the client was closed with the service");
        }
    }

    @Test
    @DisplayName("a join service with no etcd reachable and no etcd certificate starts, and refuses a join UNAVAILABLE naming the cluster store")
    void serviceStartsWithoutEtcd(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
        try (TestCluster cluster = new TestCluster()) {
            Map<String, Object> p = new HashMap<>(cluster.properties());
            p.remove(InMemoryBindingStoreDouble.PROPERTY);
            p.put(JoinServiceConfig.ETCD_ENDPOINTS, "https://127.0.0.1:" + new LoopbackPorts().next());
            p.put(JoinServiceConfig.ETCD_CA_FILE, dir.resolve("none.crt").toString());
            p.put("grpc.server.port", "0");
            try (ApplicationContext ctx = ApplicationContext.run(p, "test")) {
                GrpcEmbeddedServer server = ctx.getBean(GrpcEmbeddedServer.class);
                server.start();
                ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", server.getPort()).usePlaintext().build();
                try {
                    StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> TestCaller.as(channel, TestCaller.ak("lonely"))
                            .issueJoinTicket(IssueJoinTicketRequest.newBuilder().setDiskUuid(disk()).setNodeName("lonely").build()));
                    assertEquals(Status.Code.UNAVAILABLE, e.getStatus().getCode());
                    assertTrue(e.getStatus().getDescription().contains("cluster store (etcd)"), e.getStatus().getDescription());
                } finally {
                    channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
                }
            }
        }
    }
}
