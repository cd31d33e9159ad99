package dev.sextant.joinapi;

import com.google.protobuf.ByteString;
import dev.sextant.etcd.api.EtcdRpc.CompactionRequest;
import dev.sextant.etcd.api.EtcdRpc.DeleteRangeRequest;
import dev.sextant.etcd.api.EtcdRpc.DeleteRangeResponse;
import dev.sextant.etcd.api.KVGrpc;
import dev.sextant.etcd.pki.EtcdTlsFiles;
import dev.sextant.joinapi.binding.BindingKey;
import dev.sextant.joinapi.binding.BindingStore;
import dev.sextant.joinapi.binding.InMemoryBindingStoreDouble;
import io.grpc.ManagedChannel;
import io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.NettyChannelBuilder;
import io.micronaut.context.ApplicationContext;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLException;

/**
 * The binding store a run of {@link JoinLoadBench} measures: the in-memory double (the baseline: what a
 * ticket costs without any store) or a real three-member etcd on loopback started for the run, data in
 * /dev/shm. Each level is a new cluster, so the store forgets every binding between levels: the double
 * clears its map, etcd deletes everything under /sextant/v1/ and compacts (outside the measured time).
 */
abstract class BenchStore implements AutoCloseable {
    /** What the store is, for the header line. */
    abstract String name();

    /** A few words, for the lines that need to say which store they measured. */
    abstract String label();

    /** What the join service's properties add to (or take from) {@link TestCluster#properties()}. */
    abstract Map<String, Object> properties(TestCluster cluster);

    /** Forgets every binding: a new cluster. */
    abstract void reset(ApplicationContext service);

    /** The store's round trips so far. */
    long roundTrips(ApplicationContext service) {
        return service.getBean(BindingStore.class).roundTrips();
    }

    @Override
    public void close() throws Exception {
    }

    static BenchStore inMemory() {
        return new BenchStore() {
            @Override
            String name() {
                return "in-memory double (InMemoryBindingStoreDouble)";
            }

            @Override
            String label() {
                return "in-memory double";
            }

            @Override
            Map<String, Object> properties(TestCluster cluster) {
                return new HashMap<>(cluster.properties());
            }

            @Override
            void reset(ApplicationContext service) {
                service.getBean(InMemoryBindingStoreDouble.class).clear();
            }
        };
    }

    /** Three etcd members on 127.0.0.1; the join service knows all three and asks the first that answers. */
    static BenchStore etcd() throws SSLException {
        TestClusterStore etcd = new TestClusterStore(3);
        EtcdTlsFiles tls = etcd.etcd().clientTls("bench-reset");
        String first = etcd.endpoints().get(0);
        ManagedChannel channel = NettyChannelBuilder.forAddress(first.substring(0, first.lastIndexOf(':')),
                        Integer.parseInt(first.substring(first.lastIndexOf(':') + 1)))
                .sslContext(GrpcSslContexts.forClient().trustManager(tls.caFile().toFile())
                        .keyManager(tls.certFile().toFile(), tls.keyFile().toFile()).build())
                .build();
        return new BenchStore() {
            @Override
            String name() {
                return "etcd 3.4, three members on loopback, data in /dev/shm (" + String.join(", ", etcd.endpoints()) + ")";
            }

            @Override
            String label() {
                return "etcd, 3 members";
            }

            @Override
            Map<String, Object> properties(TestCluster cluster) {
                return new HashMap<>(etcd.joinService(cluster, "bench-join"));
            }

            @Override
            void reset(ApplicationContext service) {
                ByteString root = ByteString.copyFromUtf8(BindingKey.ROOT);
                // The key after every key starting with the root: its last byte ('/') raised by one.
                ByteString end = ByteString.copyFromUtf8(BindingKey.ROOT.substring(0, BindingKey.ROOT.length() - 1) + "0");
                KVGrpc.KVBlockingStub kv = KVGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS);
                DeleteRangeResponse deleted = kv.deleteRange(DeleteRangeRequest.newBuilder().setKey(root).setRangeEnd(end).build());
                if (deleted.getDeleted() > 0) {
                    // As a real cluster compacts its history: otherwise every level's keys stay in etcd's memory.
                    kv.compact(CompactionRequest.newBuilder().setRevision(deleted.getHeader().getRevision()).setPhysical(true).build());
                }
            }

            @Override
            public void close() throws Exception {
                channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
                etcd.close();
            }
        };
    }
}
