package dev.sextant.cli.init;

import dev.sextant.operatorfiles.MasterSecretFile;
import com.google.protobuf.ByteString;
import dev.sextant.atls.AtlsContexts;
import dev.sextant.atls.ClientVerification;
import dev.sextant.atls.OwnAttestation;
import dev.sextant.attestation.Variant;
import dev.sextant.attestation.policy.ExpectedValue;
import dev.sextant.attestation.policy.Measurements;
import dev.sextant.cli.SextantCommand;
import dev.sextant.proto.v1.InitFailure;
import dev.sextant.proto.v1.InitProgress;
import dev.sextant.proto.v1.InitRequest;
import dev.sextant.proto.v1.InitResponse;
import dev.sextant.proto.v1.InitServiceGrpc;
import dev.sextant.proto.v1.InitSuccess;
import dev.sextant.tpm.attest.TpmAttester;
import dev.sextant.tpmmanufacturer.testkit.Swtpm;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiConsumer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** `sextant init` against an in-test InitService on a swtpm-attested aTLS server (the real node is tested in node-boot). */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class InitCommandTest {
    private Swtpm swtpm;
    private TpmAttester attester;
    private Server server;
    private final AtomicReference<BiConsumer<InitRequest, StreamObserver<InitResponse>>> behaviour = new AtomicReference<>();
    private final AtomicReference<InitRequest> lastRequest = new AtomicReference<>();
    @TempDir
    Path dir;

    @BeforeAll
    void startNode() throws Exception {
        Swtpm.assumeAvailable();
        swtpm = Swtpm.provisioned();
        attester = new TpmAttester(swtpm.client(), Path.of("/nonexistent"));
        server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
                .sslContext(AtlsContexts.server(OwnAttestation.by(attester), ClientVerification.anonymous()))
                .addService(new InitServiceGrpc.InitServiceImplBase() {
                    @Override
                    public void init(InitRequest request, StreamObserver<InitResponse> response) {
                        lastRequest.set(request);
                        behaviour.get().accept(request, response);
                    }
                }).build().start();
    }

    @AfterAll
    void stopNode() throws Exception {
        if (server != null) {
            server.shutdownNow();
        }
        if (attester != null) {
            attester.close();
        }
        if (swtpm != null) {
            swtpm.close();
        }
    }

    private record Run(int exit, String out, String err) {
    }

    @Test
    @DisplayName("--control-planes N goes to the node; one outside 1 to 7 is a usage error before anything is created or sent")
    void controlPlanes() throws Exception {
        behaviour.set((request, response) -> {
            response.onNext(InitResponse.newBuilder().setSuccess(InitSuccess.newBuilder()
                    .setClusterId(ByteString.copyFrom(new byte[] {1}))).build());
            response.onCompleted();
        });
        assertEquals(0, init((byte) 0, "--control-planes", "5").exit());
        assertEquals(5, lastRequest.get().getControlPlanes());

        lastRequest.set(null);
        Files.deleteIfExists(dir.resolve("master.json"));
        Run run = init((byte) 0, "--control-planes", "8");
        assertEquals(2, run.exit(), run.out() + run.err());
        assertTrue(run.err().contains("--control-planes must be between 1 and 7 (etcd voters), got 8"), run.err());
        assertEquals(null, lastRequest.get(), "nothing was sent");
        assertFalse(Files.exists(dir.resolve("master.json")), "no master secret was created");
    }

    private Run init(byte pcr16, String... extra) throws Exception {
        byte[] expected = new byte[32];
        Arrays.fill(expected, pcr16);
        Path measurements = dir.resolve("measurements.json");
        // A measurements file must cover PCR 4, 9, 11, 12, 13 and 15: a swtpm that booted nothing has them at zero.
        TreeMap<Integer, ExpectedValue> values = new TreeMap<>(Map.of(16, new ExpectedValue(expected, false)));
        for (int pcr : new int[] {4, 9, 11, 12, 13, 15}) {
            values.put(pcr, new ExpectedValue(new byte[32], false));
        }
        Files.write(measurements, new Measurements(Variant.QEMU_VTPM, values).toJson());
        Path ekCa = dir.resolve("ek-ca.pem");
        Files.writeString(ekCa, "-----BEGIN CERTIFICATE-----\n"
                + java.util.Base64.getMimeEncoder().encodeToString(swtpm.ca().certificate().getEncoded())
                + "\n-----END CERTIFICATE-----\n");
        Files.writeString(dir.resolve("init-secret"), "the-init-secret\n");
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cli = new CommandLine(new SextantCommand());
        cli.setOut(new PrintWriter(out, true)).setErr(new PrintWriter(err, true));
        List<String> args = new ArrayList<>(List.of("init", "--endpoint", "127.0.0.1:" + server.getPort(),
                "--measurements", measurements.toString(), "--ek-ca", ekCa.toString(),
                "--master-secret", dir.resolve("master.json").toString(), "--init-secret", dir.resolve("init-secret").toString(),
                "--kubeconfig-out", dir.resolve("admin.conf").toString(), "--journal-out", dir.resolve("journal.log").toString()));
        args.addAll(List.of(extra));
        int exit = cli.execute(args.toArray(String[]::new));
        return new Run(exit, out.toString(), err.toString());
    }

    @Test
    @DisplayName("creates a 0600 master secret, sends it with the init secret, shows progress and writes the kubeconfig for the node's address")
    void success() throws Exception {
        behaviour.set((request, response) -> {
            response.onNext(InitResponse.newBuilder().setProgress(InitProgress.newBuilder().setStep("lock").setDetail("node locked")).build());
            response.onNext(InitResponse.newBuilder().setSuccess(InitSuccess.newBuilder()
                    .setKubeconfig(ByteString.copyFromUtf8("server: https://127.0.0.1:6443\n"))
                    .setClusterId(ByteString.copyFrom(new byte[] {(byte) 0xab, 0x01}))).build());
            response.onCompleted();
        });
        Run run = init((byte) 0);
        assertEquals(0, run.exit(), run.out() + run.err());
        assertTrue(run.out().contains("[lock] node locked"), run.out());
        assertTrue(run.out().contains("cluster ID: ab01"), run.out());
        assertEquals("server: https://127.0.0.1:6443\n", Files.readString(dir.resolve("admin.conf")));
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve("master.json"))));
        MasterSecretFile master = MasterSecretFile.loadOrCreate(dir.resolve("master.json"));
        InitRequest sent = lastRequest.get();
        assertArrayEquals(master.key(), sent.getMasterSecret().toByteArray());
        assertArrayEquals(master.salt(), sent.getMasterSalt().toByteArray());
        assertEquals("the-init-secret", sent.getInitSecret().toStringUtf8());
        assertEquals(32, sent.getMeasurementSalt().size());
        assertEquals(3, sent.getControlPlanes(), "the cluster admits three control planes unless --control-planes says otherwise");

        init((byte) 0);
        assertArrayEquals(master.key(), lastRequest.get().getMasterSecret().toByteArray(), "an existing master secret is reused");
    }

    @Test
    @DisplayName("a failed init prints the node's journal, saves it and exits 1")
    void failurePrintsJournal() throws Exception {
        behaviour.set((request, response) -> {
            response.onNext(InitResponse.newBuilder().setFailure(InitFailure.newBuilder().setError("k3s exited with 1")).build());
            response.onNext(InitResponse.newBuilder().setJournalChunk(ByteString.copyFromUtf8("line one\n")).build());
            response.onNext(InitResponse.newBuilder().setJournalChunk(ByteString.copyFromUtf8("line two\n")).build());
            response.onCompleted();
        });
        Run run = init((byte) 0);
        assertEquals(1, run.exit());
        assertTrue(run.out().contains("init failed: k3s exited with 1"), run.out());
        assertTrue(run.out().contains("line one\nline two\n"), run.out());
        assertEquals("line one\nline two\n", Files.readString(dir.resolve("journal.log")));
    }

    @Test
    @DisplayName("a wrong init secret reads 'init refused: wrong init secret' and exits 1")
    void wrongSecret() throws Exception {
        behaviour.set((request, response) -> response.onError(Status.PERMISSION_DENIED.asRuntimeException()));
        Run run = init((byte) 0);
        assertEquals(1, run.exit());
        assertTrue(run.out().startsWith("init refused: wrong init secret"), run.out());
    }

    @Test
    @DisplayName("a node whose measurements do not match is REJECTED before any secret is sent")
    void rejectedNode() throws Exception {
        lastRequest.set(null);
        behaviour.set((request, response) -> response.onCompleted());
        Run run = init((byte) 0x11);
        assertEquals(1, run.exit());
        assertTrue(run.out().startsWith("REJECTED: "), run.out());
        assertEquals(null, lastRequest.get(), "the node never received the request");
    }
}
