package dev.sextant.attestation.policy;

import dev.sextant.attestation.testkit.Tools;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.spec.ECGenParameterSpec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MeasurementsFileTest {
    @TempDir
    Path dir;

    @ParameterizedTest(name = "a file signed with an {0} key verifies with its public key")
    @ValueSource(strings = {"Ed25519", "EC"})
    void signAndVerify(String alg) throws Exception {
        KeyPair keys = keys(alg);
        Path file = write(MeasurementsTest.VALID);

        MeasurementsFile.sign(file, pem(keys.getPrivate()));

        assertEquals(7, MeasurementsFile.verifySet(file, pem(keys.getPublic())).images().get(0).measurements().measurements().size());
    }

    @Test
    @DisplayName("rejects a file changed after signing, saying the signature does not match")
    void rejectsTamperedFile() throws Exception {
        KeyPair keys = keys("Ed25519");
        Path file = write(MeasurementsTest.VALID);
        MeasurementsFile.sign(file, pem(keys.getPrivate()));
        Files.writeString(file, MeasurementsTest.VALID.replace("ab", "ac"));

        MeasurementsException e = assertThrows(MeasurementsException.class, () -> MeasurementsFile.verifySet(file, pem(keys.getPublic())));
        assertTrue(e.getMessage().contains("is not a valid signature of"), e.getMessage());
    }

    @Test
    @DisplayName("rejects a signature made with another key")
    void rejectsWrongKey() throws Exception {
        Path file = write(MeasurementsTest.VALID);
        MeasurementsFile.sign(file, pem(keys("EC").getPrivate()));

        MeasurementsException e = assertThrows(MeasurementsException.class,
                () -> MeasurementsFile.verifySet(file, pem(keys("EC").getPublic())));
        assertTrue(e.getMessage().contains("signed with another key"), e.getMessage());
    }

    @Test
    @DisplayName("refuses to sign a file that is not valid measurements JSON")
    void refusesToSignBadJson() throws Exception {
        Path file = write("{\"variant\": \"qemu-vtpm\"");
        MeasurementsException e = assertThrows(MeasurementsException.class,
                () -> MeasurementsFile.sign(file, pem(keys("Ed25519").getPrivate())));
        assertTrue(e.getMessage().contains("not valid JSON"), e.getMessage());
    }

    @Test
    @DisplayName("reports a missing signature file by name")
    void missingSignature() throws Exception {
        Path file = write(MeasurementsTest.VALID);
        MeasurementsException e = assertThrows(MeasurementsException.class,
                () -> MeasurementsFile.verifySet(file, pem(keys("Ed25519").getPublic())));
        assertTrue(e.getMessage().contains("measurements.json.sig"), e.getMessage());
    }

    @Test
    @DisplayName("verifies signatures made by openssl (Ed25519 raw, ECDSA P-256 DER)")
    void verifiesOpensslSignatures() throws Exception {
        Tools.assumeInstalled("openssl");
        Path file = write(MeasurementsTest.VALID);
        Tools.run(dir, "openssl", "genpkey", "-algorithm", "ed25519", "-out", "ed.pem");
        Tools.run(dir, "openssl", "pkey", "-in", "ed.pem", "-pubout", "-out", "ed.pub");
        Tools.run(dir, "sh", "-c", "openssl pkeyutl -sign -rawin -inkey ed.pem -in measurements.json | base64 > measurements.json.sig");
        MeasurementsFile.verifySet(file, Files.readString(dir.resolve("ed.pub")));

        Tools.run(dir, "openssl", "ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", "ec.pem");
        Tools.run(dir, "openssl", "ec", "-in", "ec.pem", "-pubout", "-out", "ec.pub");
        Tools.run(dir, "sh", "-c", "openssl dgst -sha256 -sign ec.pem measurements.json | base64 > measurements.json.sig");
        MeasurementsFile.verifySet(file, Files.readString(dir.resolve("ec.pub")));
        // And our EC signature over the same file with openssl's legacy "EC PRIVATE KEY" PEM.
        MeasurementsFile.sign(file, Files.readString(dir.resolve("ec.pem")));
        MeasurementsFile.verifySet(file, Files.readString(dir.resolve("ec.pub")));
    }

    private Path write(String content) throws Exception {
        Path file = dir.resolve("measurements.json");
        Files.writeString(file, content, StandardCharsets.UTF_8);
        return file;
    }

    static KeyPair keys(String alg) throws Exception {
        KeyPairGenerator g = KeyPairGenerator.getInstance(alg);
        if (alg.equals("EC")) {
            g.initialize(new ECGenParameterSpec("secp256r1"));
        }
        return g.generateKeyPair();
    }

    static String pem(Object key) throws Exception {
        StringWriter w = new StringWriter();
        try (JcaPEMWriter pw = new JcaPEMWriter(w)) {
            // Private keys as PKCS#8 ("BEGIN PRIVATE KEY"), the form openssl genpkey writes.
            pw.writeObject(key instanceof java.security.PrivateKey k ? new JcaPKCS8Generator(k, null) : key);
        }
        return w.toString();
    }
}
