package dev.sextant.cli.measurements;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sextant.atls.AtlsContexts;
import dev.sextant.atls.AtlsServers;
import dev.sextant.atls.ClientVerification;
import dev.sextant.atls.HandshakeLimits;
import dev.sextant.atls.OwnAttestation;
import dev.sextant.attestation.policy.MeasurementSet;
import dev.sextant.attestation.policy.MeasurementsFile;
import dev.sextant.attestation.testkit.SoftwareTpmAttester;
import dev.sextant.attestation.testkit.SoftwareTpmOptions;
import dev.sextant.attestation.testkit.TestPki;
import dev.sextant.cli.Main;
import dev.sextant.proto.v1.MeasurementsServiceGrpc;
import dev.sextant.proto.v1.PublishResponse;
import dev.sextant.proto.v1.SignedMeasurements;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code sextant measurements publish} against a server-attested stand-in for the join service's
 * MeasurementsService (a software TPM, real aTLS on a real port): what reaches the service, and what the
 * operator reads. The service's own checks are join-api's (SetPublishTest, MeasurementsPublishAttacksTest).
 */
@DisplayName("sextant measurements publish: the set goes only to a join service verified against it")
class PublishCommandTest {
    private static final TestPki EK_CA = new TestPki("publish-ek-ca");

    @TempDir
    Path dir;

    private Server server;
    private final AtomicReference<SignedMeasurements> received = new AtomicReference<>();
    private volatile Status refusal;

    @AfterEach
    void stop() throws InterruptedException {
        if (server != null) {
            server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
    }

    /** A control plane's TPM: the image {@code image} describes, PCR 15 marked by its bootstrap. */
    private static SoftwareTpmAttester bootstrapped(SoftwareTpmOptions image) {
        byte[] mark = new byte[32];
        Arrays.fill(mark, (byte) 0x15);
        return new SoftwareTpmAttester(EK_CA, image.withPcr(15, mark));
    }

    private int serve(SoftwareTpmAttester tpm) throws Exception {
        NettyServerBuilder builder = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0));
        AtlsServers.secure(builder, AtlsContexts.server(OwnAttestation.by(tpm), ClientVerification.anonymous()), HandshakeLimits.defaults());
        server = builder.addService(new MeasurementsServiceGrpc.MeasurementsServiceImplBase() {
            @Override
            public void publish(SignedMeasurements request, StreamObserver<PublishResponse> responses) {
                received.set(request);
                if (refusal != null) {
                    responses.onError(refusal.asRuntimeException());
                    return;
                }
                responses.onNext(PublishResponse.newBuilder().setVersion(7).addImageVersions("20261203.090000")
                        .addNewlyRetired("20261101.120000").build());
                responses.onCompleted();
            }
        }).build().start();
        return server.getPort();
    }

    /** The set of version 7 admitting the image {@code tpm} runs, signed; returns the CLI's arguments but the endpoint. */
    private String[] signedSetOf(SoftwareTpmAttester tpm, int port) throws Exception {
        KeyPair signing = KeyPairGenerator.getInstance("Ed25519").generateKeyPair();
        Path set = Files.write(dir.resolve("set.json"), MeasurementSet.of(7, tpm.measurements(), "20261203.090000").toJson());
        MeasurementsFile.sign(set, pem(new JcaPKCS8Generator(signing.getPrivate(), null)));
        Path pub = Files.writeString(dir.resolve("pub.pem"), pem(signing.getPublic()));
        Path ca = Files.writeString(dir.resolve("ca.pem"), pem(EK_CA.caCertificate()));
        return new String[]{"measurements", "publish", "--measurements", set.toString(), "--measurements-key", pub.toString(),
                "--endpoint", "127.0.0.1:" + port, "--ek-ca", ca.toString(), "--timeout", "20"};
    }

    private record Run(int exit, String out, String err) {
    }

    private static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exit = Main.commandLine().setOut(new PrintWriter(out, true)).setErr(new PrintWriter(err, true)).execute(args);
        return new Run(exit, out.toString(), err.toString());
    }

    @Test
    @DisplayName("a join service whose quote the set admits receives the file's bytes and its .sig, not the key; the operator reads the version, the images and what was retired")
    void publishes() throws Exception {
        SoftwareTpmAttester image = new SoftwareTpmAttester(EK_CA, SoftwareTpmOptions.defaults());
        String[] args = signedSetOf(image, serve(bootstrapped(SoftwareTpmOptions.defaults())));
        Run r = run(args);

        assertEquals(0, r.exit(), r.out() + r.err());
        Path set = dir.resolve("set.json");
        assertTrue(Arrays.equals(Files.readAllBytes(set), received.get().getJson().toByteArray()));
        assertTrue(Arrays.equals(Files.readAllBytes(MeasurementsFile.signatureFile(set)), received.get().getSignature().toByteArray()));
        assertEquals("", received.get().getPublicKeyPem());
        assertTrue(r.out().startsWith("published measurement set version 7 at 127.0.0.1:"), r.out());
        assertTrue(r.out().contains("join service verified on image 20261203.090000"), r.out());
        assertTrue(r.out().contains("retired 20261101.120000"), r.out());
    }

    @Test
    @DisplayName("a join service on an image the set does not admit: REJECTED naming the PCR, exit 1, and it never receives the set")
    void unverifiedServiceGetsNothing() throws Exception {
        SoftwareTpmAttester expected = new SoftwareTpmAttester(EK_CA, SoftwareTpmOptions.defaults());
        byte[] other = new byte[32];
        Arrays.fill(other, (byte) 0x66);
        SoftwareTpmAttester elsewhere = bootstrapped(SoftwareTpmOptions.defaults().withPcr(7, other));
        Run r = run(signedSetOf(expected, serve(elsewhere)));

        assertEquals(1, r.exit(), r.out() + r.err());
        assertTrue(r.out().startsWith("REJECTED: PCR_MISMATCH"), r.out());
        assertNull(received.get(), "the set reached a join service the operator could not verify");
    }

    @Test
    @DisplayName("a service on the admitted image that never bootstrapped (PCR 15 zero) serves no cluster: REJECTED, and it never receives the set")
    void unbootstrappedServiceGetsNothing() throws Exception {
        SoftwareTpmAttester image = new SoftwareTpmAttester(EK_CA, SoftwareTpmOptions.defaults());
        Run r = run(signedSetOf(image, serve(image)));

        assertEquals(1, r.exit(), r.out() + r.err());
        assertTrue(r.out().startsWith("REJECTED: PCR_MISMATCH") && r.out().contains("PCR 15 is zero"), r.out());
        assertNull(received.get());
    }

    @Test
    @DisplayName("the join service's refusal (a version not above the one in force) is printed as what is wrong with the set, exit 2")
    void refusalSaysWhatIsWrong() throws Exception {
        refusal = Status.FAILED_PRECONDITION.withDescription("the set's version 7 is not above version 9, the one in force");
        SoftwareTpmAttester tpm = new SoftwareTpmAttester(EK_CA, SoftwareTpmOptions.defaults());
        Run r = run(signedSetOf(tpm, serve(bootstrapped(SoftwareTpmOptions.defaults()))));

        assertEquals(2, r.exit(), r.out() + r.err());
        assertTrue(r.err().contains("refused the set (FAILED_PRECONDITION): the set's version 7 is not above version 9"), r.err());
    }

    @Test
    @DisplayName("without --measurements-key: a usage error, nothing sent")
    void keyRequired() throws Exception {
        SoftwareTpmAttester tpm = new SoftwareTpmAttester(EK_CA, SoftwareTpmOptions.defaults());
        String[] args = signedSetOf(tpm, serve(tpm));
        String[] withoutKey = new String[args.length - 2];
        int j = 0;
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--measurements-key")) {
                i++;
                continue;
            }
            withoutKey[j++] = args[i];
        }
        Run r = run(withoutKey);
        assertEquals(2, r.exit(), r.out() + r.err());
        assertTrue(r.err().contains("--measurements-key PEM is required"), r.err());
        assertNull(received.get());
    }

    private static String pem(Object o) throws Exception {
        StringWriter s = new StringWriter();
        try (JcaPEMWriter w = new JcaPEMWriter(s)) {
            w.writeObject(o);
        }
        return s.toString();
    }
}
