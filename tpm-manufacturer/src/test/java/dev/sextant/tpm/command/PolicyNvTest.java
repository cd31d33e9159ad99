package dev.sextant.tpm.command;

import dev.sextant.attestation.tpmstructures.TpmAlg;
import dev.sextant.tpmmanufacturer.testkit.Swtpm;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.sextant.tpm.transport.SwtpmSocketTransport;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Policy sessions and an NV index written under a PolicyPCR, against a real swtpm (and tpm2-tools reading it). */
class PolicyNvTest {
    private static final int INDEX = 0x01500002;
    private static final SortedSet<Integer> PCRS = new TreeSet<>(List.of(4, 11, 15));
    private static final int ATTRIBUTES = NvPublic.POLICYWRITE | NvPublic.WRITEALL | NvPublic.AUTHREAD | NvPublic.NO_DA;
    private static Swtpm swtpm;

    @BeforeAll
    static void start() throws Exception {
        Swtpm.assumeAvailable();
        swtpm = Swtpm.start();
        swtpm.client().pcr().extend(4, sha256("a boot application"));
        swtpm.client().pcr().extend(11, sha256("a UKI section"));
    }

    @AfterAll
    static void stop() throws Exception {
        if (swtpm != null) {
            swtpm.close();
        }
    }

    @AfterEach
    void undefine() throws Exception {
        try {
            tpm().nv().undefineSpace(INDEX);
        } catch (TpmException e) {
            if (!e.is(TpmRc.HANDLE)) {
                throw e;
            }
        }
    }

    private static TpmClient tpm() throws Exception {
        return swtpm.client();
    }

    private static byte[] sha256(String s) throws Exception {
        return MessageDigest.getInstance("SHA-256").digest(s.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    private static byte[] currentPcrDigest() throws Exception {
        return PcrPolicy.pcrDigest(tpm().pcr().read(TpmAlg.SHA256, PCRS));
    }

    @Test
    @DisplayName("PolicyPCR's digest computed without a TPM is the one a trial session reports (PolicyGetDigest)")
    void softwareDigestMatchesTrialSession() throws Exception {
        byte[] pcrDigest = currentPcrDigest();
        int trial = tpm().policy().startTrialSession();
        try {
            tpm().policy().pcr(trial, PCRS, new byte[0]);
            assertArrayEquals(PcrPolicy.policyDigest(PCRS, pcrDigest), tpm().policy().digest(trial));
        } finally {
            tpm().flushContext(trial);
        }
    }

    @Test
    @DisplayName("PolicyPCR given a digest of other PCR values fails with TPM_RC_VALUE")
    void otherPcrValuesRefused() throws Exception {
        int session = tpm().policy().startPolicySession();
        try {
            TpmException e = assertThrows(TpmException.class, () -> tpm().policy().pcr(session, PCRS, new byte[32]));
            assertTrue(e.is(TpmRc.VALUE), e.getMessage());
        } finally {
            tpm().flushContext(session);
        }
    }

    @Test
    @DisplayName("an index written only under PolicyPCR is written in the PCR state its policy names, read back with its"
            + " computed name, and refused (TPM_RC_POLICY_FAIL) once a PCR moved; the password cannot write it")
    void writeUnderPcrPolicy() throws Exception {
        byte[] pcrDigest = currentPcrDigest();
        byte[] policy = PcrPolicy.policyDigest(PCRS, pcrDigest);
        tpm().nv().defineSpace(INDEX, ATTRIBUTES, policy, 8);
        byte[] data = "recorded".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

        TpmException password = assertThrows(TpmException.class, () -> tpm().nv().write(INDEX, data));
        assertTrue(password.is(TpmRc.AUTH_UNAVAILABLE) || password.is(TpmRc.NV_AUTHORIZATION), password.getMessage());

        int session = tpm().policy().startPolicySession();
        tpm().policy().pcr(session, PCRS, pcrDigest);
        tpm().nv().writeUnderPolicy(INDEX, data, session);
        assertArrayEquals(data, tpm().nv().read(INDEX));
        NvPublic pub = tpm().nv().readPublic(INDEX);
        assertEquals(ATTRIBUTES | NvPublic.WRITTEN, pub.attributes());
        assertArrayEquals(policy, pub.authPolicy());
        assertArrayEquals(NvPublic.nameOf(INDEX, ATTRIBUTES | NvPublic.WRITTEN, policy, 8), pub.name());

        tpm().pcr().extend(15, sha256("the node lock"));
        int late = tpm().policy().startPolicySession();
        tpm().policy().pcr(late, PCRS, new byte[0]);
        TpmException refused = assertThrows(TpmException.class,
                () -> tpm().nv().writeUnderPolicy(INDEX, new byte[8], late));
        assertTrue(refused.is(TpmRc.POLICY_FAIL), refused.getMessage());
        assertArrayEquals(data, tpm().nv().read(INDEX), "the record is unchanged");
        swtpm.restart();    // PCR 15 back to zero for the other tests
        swtpm.client().pcr().extend(4, sha256("a boot application"));
        swtpm.client().pcr().extend(11, sha256("a UKI section"));
    }

    @Test
    @Tag("peer")
    @DisplayName("tpm2-tools agree: tpm2_createpolicy computes our PolicyPCR digest, tpm2_nvreadpublic reads our attributes and authPolicy")
    void tpm2ToolsAgree(@TempDir Path dir) throws Exception {
        Assumptions.assumeTrue(Swtpm.onPath("tpm2_createpolicy") && Swtpm.onPath("tpm2_nvreadpublic"),
                "tpm2-tools are not on PATH");
        // tpm2-tools' swtpm TCTI finds the control channel at port + 1, so this swtpm is started here.
        int port = consecutiveFreePorts();
        Process swtpmProcess = new ProcessBuilder("swtpm", "socket", "--tpm2", "--tpmstate",
                "dir=" + Files.createDirectories(dir.resolve("state")), "--server", "type=tcp,port=" + port + ",bindaddr=127.0.0.1",
                "--ctrl", "type=tcp,port=" + (port + 1) + ",bindaddr=127.0.0.1", "--flags", "not-need-init,startup-clear")
                .redirectErrorStream(true).redirectOutput(dir.resolve("swtpm.log").toFile()).start();
        try {
            byte[] policy;
            SortedMap<Integer, byte[]> values;
            try (TpmClient own = connect(port)) {
                own.pcr().extend(4, sha256("a boot application"));
                values = own.pcr().read(TpmAlg.SHA256, PCRS);
                policy = PcrPolicy.policyDigest(PCRS, PcrPolicy.pcrDigest(values));
                own.nv().defineSpace(INDEX, ATTRIBUTES, policy, 8);
            }
            Path pcrFile = dir.resolve("pcrs.bin");
            try (var out = Files.newOutputStream(pcrFile)) {
                for (byte[] v : values.values()) {
                    out.write(v);
                }
            }
            String tcti = "swtpm:host=127.0.0.1,port=" + port;
            String created = run(dir, "tpm2_createpolicy", "-T", tcti, "--policy-pcr", "-l", "sha256:4,11,15", "-f",
                    pcrFile.toString(), "-L", dir.resolve("policy.bin").toString());
            assertArrayEquals(policy, Files.readAllBytes(dir.resolve("policy.bin")), created);
            String pub = run(dir, "tpm2_nvreadpublic", "-T", tcti, String.format("0x%08x", INDEX));
            assertTrue(pub.contains("policywrite") && pub.contains("writeall") && pub.contains("authread")
                    && pub.contains("no_da"), pub);
            assertTrue(pub.toLowerCase().contains(HexFormat.of().formatHex(policy)), pub);
        } finally {
            swtpmProcess.destroy();
            swtpmProcess.waitFor(10, TimeUnit.SECONDS);
        }
    }

    private static TpmClient connect(int port) throws Exception {
        for (int attempt = 0; ; attempt++) {
            try {
                return new TpmClient(new SwtpmSocketTransport("127.0.0.1", port));
            } catch (java.io.IOException e) {
                if (attempt > 50) {
                    throw e;
                }
                Thread.sleep(100);
            }
        }
    }

    private static int consecutiveFreePorts() throws Exception {
        for (int attempt = 0; attempt < 20; attempt++) {
            try (ServerSocket first = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                int port = first.getLocalPort();
                if (port < 65535) {
                    try (ServerSocket second = new ServerSocket(port + 1, 1, InetAddress.getLoopbackAddress())) {
                        return port;
                    } catch (java.io.IOException busy) {
                        // try another pair
                    }
                }
            }
        }
        throw new IllegalStateException("no two consecutive free loopback ports");
    }

    private static String run(Path dir, String... argv) throws Exception {
        Path log = dir.resolve(argv[0] + ".log");
        Process p = new ProcessBuilder(argv).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError(argv[0] + " hung");
        }
        String out = Files.readString(log);
        assertEquals(0, p.exitValue(), out);
        return out;
    }
}
