package dev.sextant.joinapi.measurements;

import com.google.protobuf.ByteString;
import dev.sextant.attestation.Variant;
import dev.sextant.attestation.policy.ExpectedValue;
import dev.sextant.attestation.policy.ImageMeasurements;
import dev.sextant.attestation.policy.MeasurementSet;
import dev.sextant.attestation.policy.Measurements;
import dev.sextant.attestation.policy.MeasurementsFile;
import dev.sextant.attestation.policy.MeasurementsKey;
import dev.sextant.etcd.client.EtcdClient;
import dev.sextant.joinapi.TestCluster;
import dev.sextant.joinapi.TestClusterStore;
import dev.sextant.proto.v1.MeasurementsServiceGrpc;
import dev.sextant.proto.v1.PublishResponse;
import dev.sextant.proto.v1.SignedMeasurements;
import io.grpc.ManagedChannel;
import io.grpc.netty.NettyChannelBuilder;
import io.micronaut.context.ApplicationContext;
import io.micronaut.grpc.server.GrpcEmbeddedServer;
import java.io.IOException;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.Key;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;

/**
 * Join services on one real etcd, each on its own gRPC port (aTLS off: the publish path is the subject, the
 * port's aTLS is the join tests'), their first set a file signed by the cluster's key, the key pinned in etcd
 * as init pins it, and the set watcher polling every {@value #POLL_MS} ms. Sets are built as format 2 with
 * images whose PCRs are seeded, so two images with one seed have the same PCR 4, 9 and 11.
 */
public final class PublishingCluster implements AutoCloseable {
    public static final String SET = "/sextant/v1/measurements/set";
    public static final String RETIRED = "/sextant/v1/measurements/retired/";
    public static final String FLOOR = "/sextant/v1/measurements/floor";
    private static final String KEY_PIN = "/sextant/v1/measurements/key";
    static final long POLL_MS = 200;

    public final TestCluster cluster = new TestCluster();
    public final TestClusterStore etcd = new TestClusterStore(1);
    private final List<ApplicationContext> services = new ArrayList<>();
    private final List<ManagedChannel> channels = new ArrayList<>();

    /** {@code services} join services whose file holds {@code first}, signed by the cluster's key, pinned in etcd. */
    public PublishingCluster(int services, MeasurementSet first) throws Exception {
        SignedMeasurements signed = signed(first);
        Files.write(cluster.measurements, signed.getJson().toByteArray());
        Files.write(MeasurementsFile.signatureFile(cluster.measurements), signed.getSignature().toByteArray());
        etcd.admin().put(KEY_PIN, MeasurementsKey.of(pem(cluster.signingKey.getPublic())).fingerprint());
        for (int i = 0; i < services; i++) {
            start();
        }
    }

    /** Starts one more join service on the cluster's files and etcd; returns its index. */
    public int start() {
        Map<String, Object> p = new HashMap<>(etcd.joinService(cluster, "publish-" + services.size()));
        p.put("grpc.server.port", "0");
        p.put(PublishedSetWatcher.POLL, POLL_MS + "ms");
        ApplicationContext service = ApplicationContext.run(p, "test");
        services.add(service);
        GrpcEmbeddedServer server = service.getBean(GrpcEmbeddedServer.class);
        server.start();
        channels.add(NettyChannelBuilder.forAddress("127.0.0.1", server.getPort()).usePlaintext().build());
        return services.size() - 1;
    }

    /** An image whose PCRs all derive from {@code seed}: same seed, same PCR 4, 9 and 11. */
    public static ImageMeasurements image(String version, int seed) {
        TreeMap<Integer, ExpectedValue> pcrs = new TreeMap<>();
        for (int pcr : new int[]{4, 9, 11, 12, 13, 15}) {
            byte[] value = new byte[32];
            value[0] = (byte) seed;
            value[1] = (byte) pcr;
            pcrs.put(pcr, new ExpectedValue(value, false));
        }
        return new ImageMeasurements(version, new Measurements(Variant.QEMU_VTPM, pcrs));
    }

    public static MeasurementSet set(long version, List<ImageMeasurements> images, List<ImageMeasurements> retired) {
        return new MeasurementSet(version, Variant.QEMU_VTPM, images, retired);
    }

    /** The set signed by the cluster's key, as {@code sextant measurements sign} signs it. */
    public SignedMeasurements signed(MeasurementSet set) throws Exception {
        return signed(set, cluster.signingKey);
    }

    public SignedMeasurements signed(MeasurementSet set, KeyPair key) throws Exception {
        return signed(set.toJson(), key);
    }

    public SignedMeasurements signed(byte[] json, KeyPair key) throws Exception {
        Path file = Files.createTempFile(cluster.dir, "set-", ".json");
        Files.write(file, json);
        MeasurementsFile.sign(file, pem(key.getPrivate()));
        return SignedMeasurements.newBuilder().setJson(ByteString.copyFrom(json))
                .setSignature(ByteString.copyFrom(Files.readAllBytes(MeasurementsFile.signatureFile(file)))).build();
    }

    /** The value of {@code measurements/set} for this signed set, as a writer of etcd would put it. */
    public static String storeValue(SignedMeasurements signed) {
        return new SignedSet(signed.getJson().toByteArray(), signed.getSignature().toStringUtf8()).storeValue();
    }

    public static KeyPair otherKey() throws NoSuchAlgorithmException {
        return KeyPairGenerator.getInstance("Ed25519").generateKeyPair();
    }

    public static String pem(Key key) throws IOException {
        StringWriter s = new StringWriter();
        try (JcaPEMWriter w = new JcaPEMWriter(s)) {
            w.writeObject(key);
        }
        return s.toString();
    }

    /** Publish at join service {@code service}; a refusal is the StatusRuntimeException. */
    public PublishResponse publish(int service, SignedMeasurements signed) {
        return MeasurementsServiceGrpc.newBlockingStub(channels.get(service)).withDeadlineAfter(20, TimeUnit.SECONDS).publish(signed);
    }

    public int size() {
        return services.size();
    }

    /** The version of the set in force at join service {@code service}. */
    public long versionAt(int service) {
        return services.get(service).getBean(ReloadingVerifier.class).version();
    }

    public List<String> imagesAt(int service) {
        return services.get(service).getBean(ReloadingVerifier.class).measurements().images().stream()
                .map(ImageMeasurements::imageVersion).toList();
    }

    /** Waits until every join service holds {@code version} in force (at most 15 s). */
    public void awaitEvery(long version) throws InterruptedException {
        Instant deadline = Instant.now().plusSeconds(15);
        while (true) {
            boolean all = true;
            for (int i = 0; i < services.size(); i++) {
                all &= versionAt(i) == version;
            }
            if (all) {
                return;
            }
            if (Instant.now().isAfter(deadline)) {
                List<Long> versions = new ArrayList<>();
                for (int i = 0; i < services.size(); i++) {
                    versions.add(versionAt(i));
                }
                throw new AssertionError("not every join service took version " + version + ": " + versions);
            }
            Thread.sleep(50);
        }
    }

    /** Long enough for every watcher to have read etcd several times. */
    public void severalPolls() throws InterruptedException {
        Thread.sleep(POLL_MS * 5);
    }

    public EtcdClient admin() {
        return etcd.admin();
    }

    @Override
    public void close() throws Exception {
        for (ManagedChannel c : channels) {
            c.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
        for (ApplicationContext s : services) {
            s.close();
        }
        etcd.close();
        cluster.close();
    }

}
