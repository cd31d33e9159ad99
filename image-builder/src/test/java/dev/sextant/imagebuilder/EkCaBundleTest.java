package dev.sextant.imagebuilder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sextant.attestation.testkit.TestPki;
import dev.sextant.nodeboot.jointrust.JoinServiceTrustSettings;
import java.io.ByteArrayInputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@DisplayName("The EK CA built into the image (--ek-ca)")
class EkCaBundleTest {
    private static final TestPki VENDOR = new TestPki("TPM vendor EK CA");
    private static final TestPki MINI = new TestPki("Sextant mini EK CA");
    @TempDir
    Path dir;

    @Test
    @DisplayName("lands in the mkosi extra tree as /usr/share/sextant/ek-ca.pem, every --ek-ca's certificates, where node-boot reads it")
    void landsInTheExtraTree() throws Exception {
        Path tree = dir.resolve("tree");
        NodeTree.stage(tree, Optional.empty(), Optional.empty(), EkCaBundle.read(List.of(pem("vendor.pem", VENDOR), pem("mini.pem", MINI))));
        Path shipped = tree.resolve(EkCaBundle.IMAGE_PATH);
        assertEquals(List.of(VENDOR.caCertificate(), MINI.caCertificate()), parse(shipped));
        assertEquals(JoinServiceTrustSettings.IMAGE_EK_CA, "/" + EkCaBundle.IMAGE_PATH);
        BuildRequest request = BuildRequest.forRepo(dir, dir.resolve("out"), Optional.empty());
        List<String> mkosi = new MkosiCommand(request, dir.resolve("pkgmngr"), tree).arguments("1.0");
        assertEquals(tree.toString(), mkosi.get(mkosi.indexOf("--extra-tree") + 1));
    }

    @Test
    @DisplayName("is a build input: another EK CA gives another input digest, so the image is rebuilt, not reused")
    void isABuildInput() throws Exception {
        Path tree = dir.resolve("tree");
        NodeTree.stage(tree, Optional.empty(), Optional.empty(), EkCaBundle.read(List.of(pem("mini.pem", MINI))));
        String first = InputDigest.of(List.of(tree), List.of("mkosi", "build"));
        NodeTree.stage(tree, Optional.empty(), Optional.empty(), EkCaBundle.read(List.of(pem("mini.pem", MINI))));
        assertEquals(first, InputDigest.of(List.of(tree), List.of("mkosi", "build")));
        NodeTree.stage(tree, Optional.empty(), Optional.empty(), EkCaBundle.read(List.of(pem("vendor.pem", VENDOR))));
        assertNotEquals(first, InputDigest.of(List.of(tree), List.of("mkosi", "build")));
        NodeTree.stage(tree, Optional.empty(), Optional.empty(), EkCaBundle.NONE);
        assertFalse(Files.exists(tree.resolve(EkCaBundle.IMAGE_PATH)), "an image built without --ek-ca ships no EK CA");
    }

    @Test
    @DisplayName("ships only the certificates of a file, and refuses a file holding a private key (the image is public) or no certificate")
    void certificatesOnly() throws Exception {
        Path withComment = Files.writeString(dir.resolve("commented.pem"), "Subject: a vendor's CA\n" + Files.readString(pem("v.pem", VENDOR)));
        assertFalse(EkCaBundle.read(List.of(withComment)).pem().contains("Subject"));
        Path withKey = Files.writeString(dir.resolve("key.pem"), Files.readString(pem("m.pem", MINI))
                + "-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n");
        BuildException key = assertThrows(BuildException.class, () -> EkCaBundle.read(List.of(withKey)));
        assertTrue(key.getMessage().contains("holds a private key"), key.getMessage());
        Path empty = Files.writeString(dir.resolve("empty.pem"), "");
        BuildException none = assertThrows(BuildException.class, () -> EkCaBundle.read(List.of(empty)));
        assertTrue(none.getMessage().contains("--ek-ca " + empty + " holds no certificate"), none.getMessage());
    }

    private Path pem(String name, TestPki ca) throws Exception {
        return Files.writeString(dir.resolve(name), "-----BEGIN CERTIFICATE-----\n"
                + Base64.getMimeEncoder().encodeToString(ca.caCertificate().getEncoded()) + "\n-----END CERTIFICATE-----\n");
    }

    private static List<X509Certificate> parse(Path pem) throws Exception {
        try (var in = new ByteArrayInputStream(Files.readAllBytes(pem))) {
            return CertificateFactory.getInstance("X.509").generateCertificates(in).stream()
                    .map(c -> (X509Certificate) c).toList();
        }
    }
}
