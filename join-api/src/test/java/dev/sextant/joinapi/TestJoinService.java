package dev.sextant.joinapi;

import dev.sextant.etcd.client.EtcdClient;
import dev.sextant.serviceconfig.JoinServiceConfig;
import io.grpc.ManagedChannel;
import io.grpc.netty.NettyChannelBuilder;
import io.micronaut.context.ApplicationContext;
import io.micronaut.grpc.server.GrpcEmbeddedServer;
import java.time.Duration;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * One join service as it starts in a cluster, over real etcd: a {@link TestCluster} (its files, KMS and
 * Kubernetes API doubles) and a one-member {@link TestClusterStore}, made at construction so a test can
 * prepare the files before {@link #start()}; then the service's settings, said by the test in the words of
 * its scenario (node-local mode, an init node, the re-attestation duty), and the service itself. Its gRPC
 * port opens only when a test asks for a {@link #channel()}: the duty's tests call no RPC. {@link #close()}
 * stops the service, then etcd, then removes the files.
 */
public final class TestJoinService implements AutoCloseable {
    public final TestCluster cluster;
    public final TestClusterStore etcd;
    private final Map<String, Object> settings;
    private ApplicationContext context;
    private ManagedChannel channel;

    /** The cluster and its store; the service's etcd client certificate is named {@code clientName}. */
    public TestJoinService(String clientName) {
        TestCluster files = new TestCluster();
        try {
            etcd = new TestClusterStore(1);
        } catch (RuntimeException e) {
            closeQuietly(files, e);
            throw e;
        }
        cluster = files;
        settings = new HashMap<>(etcd.joinService(cluster, clientName));
        settings.put("grpc.server.port", "0");
        settings.put("micronaut.server.port", "-1");
    }

    /** Node-local mode: no Kubernetes API, no kubelet certificates, no Node objects. */
    public TestJoinService withoutKubernetes() {
        return with(JoinServiceConfig.KUBERNETES_ENABLED, "false");
    }

    /** The init node as init configures its join service: its AK, node name and a disk of its own. */
    public TestJoinService initNode(String akHex, String nodeName) {
        with(JoinServiceConfig.INIT_NODE_AK_NAME, akHex);
        with(JoinServiceConfig.INIT_NODE_NODE_NAME, nodeName);
        return with(JoinServiceConfig.INIT_NODE_DISK_UUIDS, UUID.randomUUID().toString());
    }

    /** {@link #initNode(String, String)} for an AK name given as bytes. */
    public TestJoinService initNode(byte[] akName, String nodeName) {
        return initNode(HexFormat.of().formatHex(akName), nodeName);
    }

    /**
     * The re-attestation duty on (TestCluster switches it off), held as {@code holder}, a round every
     * {@code period}, the holder's lease {@code lease}.
     */
    public TestJoinService reAttesting(String holder, Duration period, Duration lease) {
        with("sextant.join.reattest.enabled", "true");
        with("sextant.join.reattest.period", period.toMillis() + "ms");
        with("sextant.join.reattest.lease", lease.toMillis() + "ms");
        return with("sextant.join.reattest.holder-name", holder);
    }

    /** Any other setting, by its name. */
    public TestJoinService with(String name, Object value) {
        settings.put(name, value);
        return this;
    }

    /** Starts the service on the cluster's files as they are now. */
    public TestJoinService start() {
        if (context != null) {
            throw new IllegalStateException("the join service is running; stop() it first");
        }
        context = ApplicationContext.builder().properties(settings).environments("test").start();
        return this;
    }

    /** Stops the service (its etcd and files stay): the next {@link #start()} is a restart. */
    public void stop() throws Exception {
        if (channel != null) {
            channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
            channel = null;
        }
        if (context != null) {
            context.close();
            context = null;
        }
    }

    /** The running service's application context. */
    public ApplicationContext context() {
        if (context == null) {
            throw new IllegalStateException("the join service is not running");
        }
        return context;
    }

    /** A bean of the running service. */
    public <T> T bean(Class<T> type) {
        return context().getBean(type);
    }

    /** A plaintext channel to the running service's gRPC port (aTLS is off), opening the port on first use. */
    public ManagedChannel channel() {
        if (channel == null) {
            GrpcEmbeddedServer server = bean(GrpcEmbeddedServer.class);
            server.start();
            channel = NettyChannelBuilder.forAddress("127.0.0.1", server.getPort()).usePlaintext().build();
        }
        return channel;
    }

    /** A client holding a certificate of the etcd CA, to read and write what the service keeps. */
    public EtcdClient admin() {
        return etcd.admin();
    }

    @Override
    public void close() throws Exception {
        try {
            stop();
        } finally {
            try {
                etcd.close();
            } finally {
                cluster.close();
            }
        }
    }

    private static void closeQuietly(AutoCloseable c, Exception failure) {
        try {
            c.close();
        } catch (Exception e) {
            failure.addSuppressed(e);
        }
    }
}
