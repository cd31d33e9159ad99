package dev.sextant.cli;

import dev.sextant.atls.AtlsContexts;
import dev.sextant.atls.ClientVerification;
import dev.sextant.atls.OwnAttestation;
import dev.sextant.attestation.Variant;
import dev.sextant.attestation.policy.ExpectedValue;
import dev.sextant.attestation.policy.ImageMeasurements;
import dev.sextant.attestation.policy.MeasurementSet;
import dev.sextant.attestation.policy.Measurements;
import dev.sextant.attestation.policy.MeasurementsFile;
import dev.sextant.attestation.testkit.SoftwareTpmAttester;
import dev.sextant.proto.v1.GetAttestationRequest;
import dev.sextant.proto.v1.GetAttestationResponse;
import dev.sextant.proto.v1.VerifyServiceGrpc;
import io.grpc.Server;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.Writer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The mistakes people make with the CLI, one row each: the exact first line printed and the exit
 * code. Endpoints are real loopback ports: a closed one, one that accepts and never answers, and an
 * attested-TLS node backed by the software TPM of attestation's test kit.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@DisplayName("sextant, used wrongly")
class CliMistakesTest {
    @TempDir
    static Path dir;
    private SoftwareTpmAttester attester;
    private Server node;
    private ServerSocket silent;
    private int closedPort;

    /** A mistake, the command line (with {dir}, {node}, {closed}, {silent}, {pcr16}), and what the person sees. */
    record Mistake(String mistake, String commandLine, int exit, String firstLine) {
        @Override
        public String toString() { return mistake; }
    }

    static List<Mistake> mistakes() {
        String verifyOk = " --measurements {dir}/good.json --ek-ca {dir}/ek-ca.pem";
        return List.of(
                new Mistake("a document that does not exist",
                        "attest verify --doc {dir}/missing.bin --nonce 00" + verifyOk, 2,
                        "sextant attest verify: --doc {dir}/missing.bin: no such file:"
                                + " pass the document that `sextant attest quote --out` wrote"),
                new Mistake("a directory where a file belongs",
                        "attest verify --doc {dir} --nonce 00" + verifyOk, 2,
                        "sextant attest verify: --doc {dir}: is a directory, not a file:"
                                + " pass the document that `sextant attest quote --out` wrote"),
                new Mistake("an EK CA file that is not PEM",
                        "attest verify --doc {dir}/missing.bin --nonce 00 --measurements {dir}/good.json --ek-ca {dir}/not.pem", 2,
                        "sextant attest verify: --ek-ca {dir}/not.pem: not a PEM bundle of certificates:"
                                + " pass the EK CA certificate (ca-cert.pem of `sextant tpm ca --dir DIR`)"),
                new Mistake("a JSON file that is not measurements",
                        "verify --endpoint 127.0.0.1:{node} --measurements {dir}/other.json --ek-ca {dir}/ek-ca.pem", 2,
                        "sextant verify: --measurements {dir}/other.json: not a measurements file"
                                + " (the top level has unknown field \"pcrs\"): pass the measurements.json that `sextant image build` wrote"),
                new Mistake("a public key where the signing key belongs",
                        "measurements sign --file {dir}/good.json --key {dir}/pub.pem", 2,
                        "sextant measurements sign: --key {dir}/pub.pem: holds a public key, not an unencrypted private key:"
                                + " pass the measurements-key.pem that `sextant measurements keygen` wrote"),
                new Mistake("a private key where the next signing key's public key belongs",
                        "measurements sign --file {dir}/good.json --key {dir}/ca-key.pem --next-key {dir}/ca-key.pem", 2,
                        "sextant measurements sign: --next-key {dir}/ca-key.pem: holds a private key, not a public key (BEGIN PUBLIC KEY):"
                                + " pass the measurements-pub.pem that `sextant measurements keygen` wrote for the new key"),
                new Mistake("nothing listening on the endpoint",
                        "verify --endpoint 127.0.0.1:{closed}" + verifyOk, 2,
                        "sextant verify: nothing listens on 127.0.0.1:{closed} (connection refused):"
                                + " start the node, or pass its gRPC port with --endpoint"),
                new Mistake("an endpoint that never answers",
                        "verify --endpoint 127.0.0.1:{silent} --timeout 1" + verifyOk, 2,
                        "sextant verify: no answer from 127.0.0.1:{silent} within 1 s:"
                                + " is the node up and reachable? (wait longer with --timeout SECONDS)"),
                new Mistake("an endpoint without a port",
                        "verify --endpoint 127.0.0.1" + verifyOk, 2,
                        "sextant verify: Invalid value for option '--endpoint': '127.0.0.1' is not HOST:PORT,"
                                + " e.g. 192.0.2.10:9000: see `sextant verify --help`"),
                new Mistake("a node that does not run the expected software",
                        "verify --endpoint 127.0.0.1:{node} --measurements {dir}/wrong.json --ek-ca {dir}/ek-ca.pem", 1,
                        "REJECTED: PCR_MISMATCH: PCR 16 (sha256) is {pcr16}… rather than 1111111111111111…"),
                new Mistake("a node still on an image the signed measurement set retired",
                        "verify --endpoint 127.0.0.1:{node} --measurements {dir}/retiring.json --measurements-key {dir}/set-pub.pem"
                                + " --ek-ca {dir}/ek-ca.pem", 1,
                        "REJECTED: IMAGE_RETIRED: the node runs image 20261101.120000, retired by measurement set version 12"),
                new Mistake("signed measurements without their signature file",
                        "measurements verify --file {dir}/unsigned.json --key {dir}/pub.pem", 2,
                        "sextant measurements verify: --file {dir}/unsigned.json has no signature file unsigned.json.sig:"
                                + " sign it with `sextant measurements sign --file {dir}/unsigned.json --key KEY.pem`"),
                new Mistake("a nonce that is not hex",
                        "attest verify --doc {dir}/missing.bin --nonce xyz" + verifyOk, 2,
                        "sextant attest verify: Invalid value for option '--nonce': 'xyz' is not hex"
                                + " (an even number of digits 0-9 a-f, e.g. 00112233): see `sextant attest verify --help`"),
                new Mistake("an option that does not exist",
                        "attest verify --doc {dir}/missing.bin --nonce 00 --verbose" + verifyOk, 2,
                        "sextant attest verify: Unknown option: '--verbose': see `sextant attest verify --help`"),
                new Mistake("init without the init secret file",
                        "init --endpoint 127.0.0.1:{node} --master-secret {dir}/master.json --init-secret {dir}/init-secret" + verifyOk, 2,
                        "sextant init: --init-secret {dir}/init-secret: no such file: pass the file holding the init secret"
                                + " the node was booted with (--init-secret FILE, or SEXTANT_INIT_SECRET_FILE=FILE)"),
                new Mistake("an image build given the EK CA's private key as --ek-ca (the image is public)",
                        "image build --out {dir}/image --ek-ca {dir}/ca-key.pem", 2,
                        "sextant image build: --ek-ca {dir}/ca-key.pem holds a private key: pass the CA's certificate"
                                + " (ca-cert.pem), never its key (the image is public)"),
                new Mistake("an image version os-release would not take",
                        "image build --out {dir}/image --image-version Release-2", 2,
                        "sextant image build: --image-version: an image version is 1 to 64 characters of 0-9, a-z, '.', '_' and '-',"
                                + " starting with a digit or letter (os-release's IMAGE_VERSION), not \"Release-2\""),
                new Mistake("a file that is not a unified kernel image",
                        "measure uki {dir}/not.pem", 2,
                        "sextant measure uki: {dir}/not.pem: malformed (MS-DOS header at byte 0: 64 bytes requested"
                                + " but the input ends at byte 16): pass a unified kernel image (.efi)"),
                new Mistake("a command group without its command",
                        "measurements", 2,
                        "sextant measurements: Missing required subcommand: see `sextant measurements --help`"));
    }

    @BeforeAll
    void start() throws Exception {
        attester = new SoftwareTpmAttester();
        write("good.json", attester.measurements().toJson());
        byte[] ones = new byte[32];
        Arrays.fill(ones, (byte) 0x11);
        TreeMap<Integer, ExpectedValue> wrong = new TreeMap<>(attester.measurements().measurements());
        wrong.put(16, new ExpectedValue(ones, false));
        write("wrong.json", new Measurements(Variant.QEMU_VTPM, wrong).toJson());
        write("unsigned.json", attester.measurements().toJson());
        // The node's image retired, a newer one (another PCR 4) admitted: a rollout finished without this node.
        TreeMap<Integer, ExpectedValue> newer = new TreeMap<>(attester.measurements().measurements());
        newer.put(4, new ExpectedValue(ones, false));
        write("retiring.json", new MeasurementSet(12, Variant.QEMU_VTPM,
                List.of(new ImageMeasurements("20261127.101500", new Measurements(Variant.QEMU_VTPM, newer))),
                List.of(new ImageMeasurements("20261101.120000", attester.measurements()))).toJson());
        KeyPair setKey = KeyPairGenerator.getInstance("Ed25519").generateKeyPair();
        writePem("set-key.pem", setKey.getPrivate());
        MeasurementsFile.sign(dir.resolve("retiring.json"), Files.readString(dir.resolve("set-key.pem")));
        writePem("set-pub.pem", setKey.getPublic());
        write("other.json", "{\"pcrs\": {}}".getBytes());
        write("not.pem", "this is not PEM\n".getBytes());
        writePem("ek-ca.pem", attester.anchors().get(0));
        writePem("pub.pem", KeyPairGenerator.getInstance("Ed25519").generateKeyPair().getPublic());
        writePem("ca-key.pem", KeyPairGenerator.getInstance("EC").generateKeyPair().getPrivate());

        node = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
                .sslContext(AtlsContexts.server(OwnAttestation.by(attester), ClientVerification.anonymous()))
                .addService(new VerifyServiceGrpc.VerifyServiceImplBase() {
                    @Override
                    public void getAttestation(GetAttestationRequest request, StreamObserver<GetAttestationResponse> response) {
                        response.onNext(GetAttestationResponse.getDefaultInstance());
                        response.onCompleted();
                    }
                }).build().start();
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = probe.getLocalPort();
        }
        // Bound and listening, never accepting: the kernel completes the TCP handshake, nobody speaks TLS.
        silent = new ServerSocket(0, 8, InetAddress.getLoopbackAddress());
    }

    @AfterAll
    void stop() throws IOException {
        if (node != null) {
            node.shutdownNow();
        }
        if (silent != null) {
            silent.close();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("mistakes")
    @DisplayName("each mistake gets one line saying what is wrong and what to do, and the documented exit code")
    void mistake(Mistake row) {
        Run run = run(fill(row.commandLine()).split(" "));
        String printed = row.exit() == 1 ? run.out() : run.err();
        assertEquals(fill(row.firstLine()), printed.lines().findFirst().orElse(""), run.out() + run.err());
        assertEquals(row.exit(), run.exit(), run.out() + run.err());
        assertNoStackTrace(run);
    }

    @Test
    @DisplayName("init that fails on its inputs creates no master secret file")
    void initChecksInputsFirst() {
        run(fill("init --endpoint 127.0.0.1:{node} --master-secret {dir}/fresh-master.json --init-secret {dir}/none"
                + " --measurements {dir}/good.json --ek-ca {dir}/ek-ca.pem").split(" "));
        assertFalse(Files.exists(dir.resolve("fresh-master.json")));
    }

    @Test
    @DisplayName("a node that runs the expected software is verified: its PCRs and the image version they matched are"
            + " printed and the exit code is 0")
    void verified() {
        Run run = run(fill("verify --endpoint 127.0.0.1:{node} --measurements {dir}/good.json --ek-ca {dir}/ek-ca.pem").split(" "));
        assertEquals(0, run.exit(), run.out() + run.err());
        assertEquals("PCR  0  " + HexFormat.of().formatHex(attester.pcrValues().get(0)), run.out().lines().findFirst().orElse(""));
        assertEquals("image   unversioned", run.out().lines().reduce((a, b) -> b).orElse(""));
    }

    @Test
    @DisplayName("--debug adds the exception and its causes after the same first line")
    void debugShowsCauses() {
        Run run = run(fill("verify --debug --endpoint 127.0.0.1:{closed} --measurements {dir}/good.json --ek-ca {dir}/ek-ca.pem").split(" "));
        assertEquals(2, run.exit());
        assertEquals(fill("sextant verify: nothing listens on 127.0.0.1:{closed} (connection refused):"
                + " start the node, or pass its gRPC port with --endpoint"), run.err().lines().findFirst().orElse(""));
        assertTrue(run.err().contains("dev.sextant.cli.failure.CliFailure"), run.err());
        assertTrue(run.err().contains("Caused by: io.grpc.StatusRuntimeException: UNAVAILABLE"), run.err());
        assertTrue(run.err().contains("Connection refused"), run.err());
    }

    private record Run(int exit, String out, String err) {
    }

    static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exit = Main.commandLine().setOut(new PrintWriter(out, true)).setErr(new PrintWriter(err, true)).execute(args);
        return new Run(exit, out.toString(), err.toString());
    }

    private static void assertNoStackTrace(Run run) {
        String all = run.out() + run.err();
        assertFalse(all.contains("\tat ") || all.contains("Exception"), "no stack trace or exception name without --debug:\n" + all);
    }

    private String fill(String template) {
        return template.replace("{dir}", dir.toString())
                .replace("{node}", Integer.toString(node.getPort()))
                .replace("{closed}", Integer.toString(closedPort))
                .replace("{silent}", Integer.toString(silent.getLocalPort()))
                .replace("{pcr16}", HexFormat.of().formatHex(attester.pcrValues().get(16)).substring(0, 16));
    }

    private void write(String name, byte[] content) throws IOException {
        Files.write(dir.resolve(name), content);
    }

    private void writePem(String name, Object object) throws IOException {
        try (Writer file = Files.newBufferedWriter(dir.resolve(name)); JcaPEMWriter pem = new JcaPEMWriter(file)) {
            pem.writeObject(object);
        }
    }
}
