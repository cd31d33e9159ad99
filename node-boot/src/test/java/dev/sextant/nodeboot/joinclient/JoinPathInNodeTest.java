package dev.sextant.nodeboot.joinclient;

import com.google.protobuf.ByteString;
import dev.sextant.atls.AtlsContexts;
import dev.sextant.atls.OwnAttestation;
import dev.sextant.atls.ServerVerification;
import dev.sextant.attestation.Variant;
import dev.sextant.attestation.testkit.ScratchDirs;
import dev.sextant.attestation.testkit.SoftwareTpmAttester;
import dev.sextant.attestation.testkit.SoftwareTpmOptions;
import dev.sextant.attestation.testkit.TestPki;
import dev.sextant.attestation.policy.ExpectedValue;
import dev.sextant.attestation.policy.Measurements;
import dev.sextant.attestation.verify.AkTrust;
import dev.sextant.attestation.verify.DocumentVerifier;
import dev.sextant.attestation.verify.VerifierPolicy;
import dev.sextant.nodeboot.initserver.InitSecretHash;
import dev.sextant.nodeboot.kubernetes.StandInK3s;
import dev.sextant.nodeboot.nodelock.LockHolder;
import dev.sextant.nodeboot.nodelock.NodeLock;
import dev.sextant.proto.v1.InitRequest;
import dev.sextant.proto.v1.InitResponse;
import dev.sextant.proto.v1.InitServiceGrpc;
import dev.sextant.tpmmanufacturer.testkit.Swtpm;
import io.grpc.ManagedChannel;
import io.grpc.netty.NettyChannelBuilder;
import io.micronaut.grpc.server.GrpcEmbeddedServer;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import io.micronaut.test.support.TestPropertyProvider;
import jakarta.inject.Inject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The whole bootstrapper with a join service configured: the join path wins and init is then refused. */
@MicronautTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class JoinPathInNodeTest implements TestPropertyProvider {
    private static final byte[] INIT_SECRET = "init-secret-for-join-path-test!!".getBytes();
    private Swtpm swtpm;
    private TestJoinService joinService;
    private StandInK3s k3s;
    private Path dir;

    @Inject
    NodeLock lock;
    @Inject
    GrpcEmbeddedServer server;

    @Override
    public Map<String, String> getProperties() {
        Swtpm.assumeAvailable();
        try {
            swtpm = Swtpm.provisioned();
            // The join service runs the node's own image (its PCRs 4, 9, 11, 12, 13) on a bootstrapped control plane (PCR 15 set).
            var ownPcrs = swtpm.client().pcr().readAll(dev.sextant.attestation.tpmstructures.TpmAlg.SHA256);
            swtpm.releaseClient();
            var serviceOptions = SoftwareTpmOptions.defaults().withEvents(List.of()).withPcr(15, filled(0x15));
            for (int pcr : List.of(4, 9, 11, 12, 13)) {
                serviceOptions = serviceOptions.withPcr(pcr, ownPcrs.get(pcr));
            }
            var serviceCa = new TestPki("join-service-ek-ca");
            var fresh = new Measurements(Variant.QEMU_VTPM, new TreeMap<>(Map.of(15, new ExpectedValue(new byte[32], false))));
            joinService = new TestJoinService(new SoftwareTpmAttester(serviceCa, serviceOptions),
                    new DocumentVerifier(new VerifierPolicy(fresh, AkTrust.ekCa(List.of(swtpm.ca().certificate())))));
            dir = Files.createTempDirectory("sextant-join-node-");
            Files.writeString(dir.resolve("service-ek-ca.pem"), "-----BEGIN CERTIFICATE-----\n"
                    + java.util.Base64.getMimeEncoder(64, "\n".getBytes()).encodeToString(serviceCa.caCertificate().getEncoded())
                    + "\n-----END CERTIFICATE-----\n");
            k3s = StandInK3s.create(dir, 0);
            Files.writeString(dir.resolve("hash"), InitSecretHash.format(new byte[16], INIT_SECRET));
            Files.writeString(dir.resolve("node.log"), "node log\n");
            return Map.ofEntries(Map.entry("sextant.tpm.address", swtpm.tpmArg()),
                    Map.entry("sextant.tpm.event-log", "/nonexistent"),
                    Map.entry(JoinClientSettings.PREFIX + ".endpoints", joinService.endpoint().toString()),
                    Map.entry("sextant.node.join-service.ek-ca-file", dir.resolve("service-ek-ca.pem").toString()),
                    Map.entry("sextant.state-disk.mount.mount-point", dir.resolve("state").toString()),
                    Map.entry("sextant.state-disk.device", dir.resolve("no-disk").toString()),
                    Map.entry("sextant.k3s.binary", k3s.binary().toString()),
                    Map.entry("sextant.k3s.config-file", k3s.settings().configFile().toString()),
                    Map.entry("sextant.k3s.kubeconfig", k3s.settings().kubeconfig().toString()),
                    Map.entry("sextant.k3s.join-settle", "200ms"),
                    Map.entry("sextant.init.secret-hash-file", dir.resolve("hash").toString()),
                    Map.entry("sextant.init.log-file", dir.resolve("node.log").toString()),
                    Map.entry("sextant.init.use-journalctl", "false"),
                    Map.entry("sextant.init.node-name", "node-b"),
                    Map.entry("sextant.failure.reboot-delay", "disabled"),
                    Map.entry("sextant.bootstrap.exit-after-bootstrap", "false"));
        } catch (Exception e) {
            throw new IllegalStateException("preparing the node", e);
        }
    }

    private static byte[] filled(int value) {
        byte[] b = new byte[32];
        java.util.Arrays.fill(b, (byte) value);
        return b;
    }

    @AfterAll
    void stop() throws Exception {
        if (joinService != null) {
            joinService.close();
        }
        if (swtpm != null) {
            swtpm.close();
        }
        ScratchDirs.delete(dir);
    }

    @Test
    @DisplayName("a node told where a join service is joins on its own; an init arriving afterwards is told the node is locked by join")
    void joinWinsThenInitIsRefused() throws Exception {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (k3s.invocations().isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        assertEquals(LockHolder.JOIN, lock.holder().orElseThrow());
        assertTrue(k3s.invocations().get(0).startsWith("agent --server https://127.0.0.1:6443 --token-file "), k3s.invocations().toString());
        assertEquals("node-b", joinService.requests.get(0).getNodeName());

        ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", server.getPort())
                .sslContext(AtlsContexts.client(OwnAttestation.none(), ServerVerification.insecureAcceptAnyServer())).build();
        try {
            List<InitResponse> received = new ArrayList<>();
            InitServiceGrpc.newBlockingStub(channel).init(InitRequest.newBuilder()
                    .setInitSecret(ByteString.copyFrom(INIT_SECRET)).setMasterSecret(ByteString.copyFrom(new byte[32]))
                    .setMasterSalt(ByteString.copyFrom(new byte[32])).setMeasurementSalt(ByteString.copyFrom(new byte[32]))
                    .build()).forEachRemaining(received::add);
            assertEquals("node is already locked by join", received.get(0).getFailure().getError());
        } finally {
            channel.shutdownNow();
        }
    }
}
