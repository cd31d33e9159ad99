package dev.sextant.joinapi.attacks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sextant.atls.AtlsContexts;
import dev.sextant.atls.OwnAttestation;
import dev.sextant.atls.ServerVerification;
import dev.sextant.attestation.policy.ImageMeasurements;
import dev.sextant.attestation.policy.MeasurementSet;
import dev.sextant.attestation.policy.MeasurementsFile;
import dev.sextant.attestation.testkit.SoftwareTpmAttester;
import dev.sextant.attestation.testkit.SoftwareTpmOptions;
import dev.sextant.attestation.testkit.TestEvent;
import dev.sextant.attestation.testkit.TestPki;
import dev.sextant.joinapi.TestCluster;
import dev.sextant.joinapi.TestClusterStore;
import dev.sextant.joinapi.measurements.PublishedSetWatcher;
import dev.sextant.joinapi.measurements.ReloadingVerifier;
import dev.sextant.proto.v1.IssueJoinTicketRequest;
import dev.sextant.proto.v1.JoinServiceGrpc;
import dev.sextant.serviceconfig.JoinServiceConfig;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.NettyChannelBuilder;
import io.micronaut.context.ApplicationContext;
import io.micronaut.grpc.server.GrpcEmbeddedServer;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * An image is retired by a measurement set that lists it under {@code retired} (docs/image-upgrades.md): a node
 * still on it, say one whose upgrade was skipped or rolled back by whoever runs its machine, must not get a
 * ticket, and must be told which image was retired. Retirement is final: no later set brings the image back,
 * whether its version is higher or lower, and a set that is not signed by the cluster's key changes nothing.
 * Real aTLS on a real port (nodes with the attestation test kit's software TPMs, their EK/AK certificates from
 * one EK CA), bindings in real etcd.
 */
@DisplayName("Attacks with a retired image: a node still on it, a set that re-admits it, an unsigned set")
class ImageRetirementAttacksTest {
    private static final String OLD = "20261101.120000";
    private static final String NEW = "20261127.101500";
    private static final String RETIRED_LINE = "attestation rejected: IMAGE_RETIRED: the node runs image " + OLD
            + ", retired by measurement set version 12";

    private final TestPki ekCa = new TestPki("sextant-retirement-test-ek-ca");
    /** Two images: their UKIs differ, so PCR 4 does (the event log replays to it). */
    private final SoftwareTpmAttester oldNode = new SoftwareTpmAttester(ekCa, image("uki-" + OLD + ".efi"));
    private final SoftwareTpmAttester newNode = new SoftwareTpmAttester(ekCa, image("uki-" + NEW + ".efi"));
    private TestCluster cluster;
    private TestClusterStore etcd;
    private KeyPair signing;
    private Path measurements;

    @BeforeEach
    void start() throws Exception {
        cluster = new TestCluster();
        etcd = new TestClusterStore(1);
        signing = ed25519();
        measurements = Files.createDirectories(cluster.dir.resolve("retirement")).resolve("measurements.json");
        Files.writeString(cluster.dir.resolve("retirement.pub"), pem(signing.getPublic()));
        Files.writeString(cluster.dir.resolve("retirement-ek-ca.pem"), pem(ekCa.caCertificate()));
    }

    @AfterEach
    void stop() throws Exception {
        cluster.close();
        etcd.close();
    }

    private static SoftwareTpmOptions image(String uki) {
        return SoftwareTpmOptions.defaults().withEvents(List.of(
                new TestEvent(4, TestEvent.EV_IPL, uki.getBytes(StandardCharsets.UTF_8)),
                new TestEvent(9, TestEvent.EV_IPL, "initrd".getBytes(StandardCharsets.UTF_8)),
                new TestEvent(11, TestEvent.EV_IPL, ".linux".getBytes(StandardCharsets.UTF_8)),
                new TestEvent(11, TestEvent.EV_IPL, ".cmdline".getBytes(StandardCharsets.UTF_8))));
    }

    private ImageMeasurements oldImage() {
        return new ImageMeasurements(OLD, oldNode.measurements());
    }

    private ImageMeasurements newImage() {
        return new ImageMeasurements(NEW, newNode.measurements());
    }

    private static MeasurementSet set(long version, List<ImageMeasurements> images, List<ImageMeasurements> retired) {
        return new MeasurementSet(version, images.get(0).measurements().variant(), images, retired);
    }

    /** The rollout's end: the new image only, the old one retired, version 12. */
    private MeasurementSet retiring() {
        return set(12, List.of(newImage()), List.of(oldImage()));
    }

    private void publish(MeasurementSet set) throws Exception {
        publish(set, signing);
    }

    private void publish(MeasurementSet set, KeyPair key) throws Exception {
        Files.write(measurements, set.toJson());
        MeasurementsFile.sign(measurements, pem(key.getPrivate()));
    }

    @Test
    @DisplayName("a node on an image the set in force retired asks for a join ticket: PERMISSION_DENIED naming the retired "
            + "version and the set, nothing bound, no key fetched; a node on the admitted image joins")
    void nodeOnARetiredImage() throws Exception {
        publish(retiring());
        try (Service service = new Service()) {
            int kmsCalls = cluster.kms.calls.get();
            assertRetired(service, "old-node");
            assertEquals(kmsCalls, cluster.kms.calls.get(), "a key was fetched for a node on a retired image");
            assertEquals(Status.Code.OK, service.join(newNode, "new-node").getCode());
        }
    }

    @Test
    @DisplayName("a node that was admitted during the rollout is refused, naming its image, once the retiring set is loaded")
    void retiredDuringTheRollout() throws Exception {
        publish(set(11, List.of(oldImage(), newImage()), List.of()));
        try (Service service = new Service()) {
            assertEquals(Status.Code.OK, service.join(oldNode, "old-node").getCode(), "the rollout set admits the old image");
            publish(retiring());
            service.verifier().reload();
            assertEquals(12, service.verifier().version());
            assertRetired(service, "old-node-again");
        }
    }

    @Test
    @DisplayName("a validly signed set that re-admits the retired image under a higher version (13), or under a new name "
            + "with its PCRs, is refused by the running service; the retiring set stays in force and the old node stays refused")
    void readmittedWithAHigherVersion() throws Exception {
        publish(retiring());
        try (Service service = new Service()) {
            assertRetired(service, "old-node");
            for (MeasurementSet back : List.of(set(13, List.of(newImage(), oldImage()), List.of()),
                    set(13, List.of(newImage(), new ImageMeasurements("20261204.000000", oldNode.measurements())), List.of()))) {
                publish(back);
                assertFalse(service.verifier().reload(), "a set re-admitting the retired image was loaded");
                assertEquals(12, service.verifier().version());
                assertRetired(service, "old-node");
            }
            assertEquals(Status.Code.OK, service.join(newNode, "new-node").getCode());
        }
    }

    @Test
    @DisplayName("a validly signed set that re-admits the retired image with a lower version (the rollout set, 11, replayed) "
            + "is refused by the running service, and after a restart no ticket is issued under it (the floor is 12)")
    void readmittedWithALowerVersion() throws Exception {
        publish(retiring());
        try (Service service = new Service()) {
            // A ticket under the retiring set: the cluster's floor is its version (a set is admitted at its first ticket).
            assertEquals(Status.Code.OK, service.join(newNode, "new-node").getCode());
            assertRetired(service, "old-node");
            publish(set(11, List.of(oldImage(), newImage()), List.of()));
            assertFalse(service.verifier().reload(), "the older set re-admitting the retired image was loaded");
            assertEquals(12, service.verifier().version());
            assertRetired(service, "old-node");
        }
        try (Service restarted = new Service()) {
            Status refused = restarted.join(oldNode, "old-node-after-restart");
            assertEquals(Status.Code.FAILED_PRECONDITION, refused.getCode(), refused.toString());
            assertTrue(refused.getDescription().contains("lower than version 12 the cluster has accepted before"), refused.toString());
            assertEquals(Optional.empty(), etcd.admin().get("/sextant/v1/bindings/node/old-node-after-restart"));
        }
    }

    @Test
    @DisplayName("an unsigned set, or one signed by another key, whether it re-admits the retired image or only raises the "
            + "version, is refused; the set in force stays and the old node stays refused")
    void unsignedSet() throws Exception {
        publish(retiring());
        try (Service service = new Service()) {
            for (MeasurementSet offered : List.of(set(13, List.of(newImage(), oldImage()), List.of()),
                    set(13, List.of(newImage()), List.of(oldImage())))) {
                publish(retiring());
                Files.write(measurements, offered.toJson()); // the retiring set's signature beside it
                assertFalse(service.verifier().reload(), "an unsigned set was loaded");
                Files.delete(MeasurementsFile.signatureFile(measurements));
                assertFalse(service.verifier().reload(), "a set without a signature file was loaded");
                publish(offered, ed25519());
                assertFalse(service.verifier().reload(), "a set signed by another key was loaded");
                assertEquals(12, service.verifier().version());
            }
            assertEquals(List.of(NEW), service.verifier().measurements().images().stream().map(ImageMeasurements::imageVersion).toList());
            assertRetired(service, "old-node");
            assertEquals(Status.Code.OK, service.join(newNode, "new-node").getCode());
        }
    }

    private void assertRetired(Service service, String name) throws Exception {
        Status refused = service.join(oldNode, name);
        assertEquals(Status.Code.PERMISSION_DENIED, refused.getCode(), refused.toString());
        assertEquals(RETIRED_LINE, refused.getDescription());
        assertEquals(Optional.empty(), etcd.admin().get("/sextant/v1/bindings/node/" + name), "the refused node's name was bound");
    }

    private static KeyPair ed25519() throws Exception {
        return KeyPairGenerator.getInstance("Ed25519").generateKeyPair();
    }

    private static String pem(Object o) throws Exception {
        StringWriter s = new StringWriter();
        try (JcaPEMWriter w = new JcaPEMWriter(s)) {
            w.writeObject(o);
        }
        return s.toString();
    }

    /** A join service behind client-attested aTLS on the files as they are now. */
    private final class Service implements AutoCloseable {
        private final ApplicationContext context;
        private final int port;

        Service() {
            Map<String, Object> p = new HashMap<>(etcd.joinService(cluster, "retirement-join"));
            p.put(JoinServiceConfig.ATLS_ENABLED, "true");
            p.put(JoinServiceConfig.MEASUREMENTS_FILE, measurements.toString());
            p.put(JoinServiceConfig.MEASUREMENTS_PUBLIC_KEY_FILE, cluster.dir.resolve("retirement.pub").toString());
            p.put(JoinServiceConfig.EK_CA_FILE, cluster.dir.resolve("retirement-ek-ca.pem").toString());
            p.put("grpc.server.port", "0");
            p.put("micronaut.server.port", "-1");
            // These rows are about the files a service reloads and the floor; the set in etcd (which would hand a
            // restarted service set 12 at once) is MeasurementsPublishAttacksTest's.
            p.put(PublishedSetWatcher.ENABLED, "false");
            context = ApplicationContext.run(p, "test");
            GrpcEmbeddedServer server = context.getBean(GrpcEmbeddedServer.class);
            server.start();
            port = server.getPort();
        }

        ReloadingVerifier verifier() {
            return context.getBean(ReloadingVerifier.class);
        }

        Status join(SoftwareTpmAttester node, String name) throws Exception {
            ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", port)
                    .sslContext(AtlsContexts.client(OwnAttestation.by(node), ServerVerification.insecureAcceptAnyServer())).build();
            try {
                JoinServiceGrpc.newBlockingStub(channel).withDeadlineAfter(20, TimeUnit.SECONDS).issueJoinTicket(
                        IssueJoinTicketRequest.newBuilder().setDiskUuid(UUID.randomUUID().toString()).setNodeName(name).build());
                return Status.OK;
            } catch (StatusRuntimeException e) {
                return e.getStatus();
            } finally {
                channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
            }
        }

        @Override
        public void close() throws Exception {
            context.close();
        }
    }
}
