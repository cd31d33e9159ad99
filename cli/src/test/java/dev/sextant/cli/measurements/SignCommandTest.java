package dev.sextant.cli.measurements;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sextant.attestation.policy.MeasurementsFile;
import dev.sextant.attestation.policy.MeasurementsKey;
import dev.sextant.attestation.policy.MeasurementSet;
import dev.sextant.attestation.Variant;
import dev.sextant.attestation.policy.ExpectedValue;
import dev.sextant.attestation.policy.Measurements;
import dev.sextant.cli.SextantCommand;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

@DisplayName("sextant measurements sign --next-key: a set that hands the cluster to the next signing key")
class SignCommandTest {
    @TempDir
    Path dir;

    @Test
    @DisplayName("--next-key writes the next key into the file as \"nextKey\" and signs the result with --key; the output is the .sig path as before")
    void namesTheNextKey() throws Exception {
        KeyPair signing = KeyPairGenerator.getInstance("Ed25519").generateKeyPair();
        KeyPair next = KeyPairGenerator.getInstance("Ed25519").generateKeyPair();
        java.util.TreeMap<Integer, ExpectedValue> pcrs = new java.util.TreeMap<>();
        for (int pcr : new int[]{4, 9, 11, 12, 13, 15}) {
            pcrs.put(pcr, new ExpectedValue(new byte[32], false));
        }
        Path file = Files.write(dir.resolve("m.json"), MeasurementSet.of(3, new Measurements(Variant.QEMU_VTPM, pcrs), "20261127.101500").toJson());
        Path key = Files.writeString(dir.resolve("key.pem"), pem(new JcaPKCS8Generator(signing.getPrivate(), null)));
        Path nextPub = Files.writeString(dir.resolve("next.pub"), pem(next.getPublic()));

        StringWriter out = new StringWriter();
        int exit = new CommandLine(new SextantCommand()).setOut(new PrintWriter(out, true)).setErr(new PrintWriter(out, true))
                .execute("measurements", "sign", "--file", file.toString(), "--key", key.toString(), "--next-key", nextPub.toString());

        assertEquals(0, exit, out.toString());
        assertTrue(out.toString().lines().anyMatch(line -> line.equals(MeasurementsFile.signatureFile(file).toString())), out.toString());
        MeasurementSet signed = MeasurementsFile.verifySet(file, pem(signing.getPublic()));
        assertEquals(MeasurementsKey.of(pem(next.getPublic())).fingerprint(), signed.nextKey().orElseThrow().fingerprint());
        assertTrue(Files.readString(file).contains("\"nextKey\""));
        assertEquals("20261127.101500", signed.images().get(0).imageVersion(), "the rewritten file is still the image build's set");
    }

    private static String pem(Object o) throws Exception {
        StringWriter s = new StringWriter();
        try (JcaPEMWriter w = new JcaPEMWriter(s)) {
            w.writeObject(o);
        }
        return s.toString();
    }
}
