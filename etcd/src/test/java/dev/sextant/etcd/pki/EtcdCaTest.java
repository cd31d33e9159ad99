package dev.sextant.etcd.pki;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("EtcdCa: the etcd CA derived from its seed, and the certificates it issues")
class EtcdCaTest {
    private static final Instant NOW = Instant.parse("2026-11-28T10:00:00Z");
    private static final String SERVER_AUTH = "1.3.6.1.5.5.7.3.1";
    private static final String CLIENT_AUTH = "1.3.6.1.5.5.7.3.2";

    private final byte[] seed = seed(7);
    private final EtcdCa ca = new EtcdCa(seed, new SecureRandom());

    @Test
    @DisplayName("two derivations from one seed give a byte-identical CA certificate, even with different randomness")
    void oneSeedOneCertificate() throws Exception {
        EtcdCa again = new EtcdCa(seed.clone(), SecureRandom.getInstance("SHA1PRNG"));
        assertArrayEquals(ca.certificate().getEncoded(), again.certificate().getEncoded());
    }

    @Test
    @DisplayName("another seed gives another key, so another CA: neither verifies the other's certificates")
    void anotherSeedAnotherCa() {
        EtcdCa other = new EtcdCa(seed(8), new SecureRandom());
        assertNotEquals(HexFormat.of().formatHex(ca.certificate().getPublicKey().getEncoded()),
                HexFormat.of().formatHex(other.certificate().getPublicKey().getEncoded()));
        X509Certificate issued = other.issueClient("cp-0", NOW, Duration.ofDays(1)).certificate();
        assertThrows(java.security.SignatureException.class, () -> issued.verify(ca.certificate().getPublicKey()));
    }

    @Test
    @DisplayName("the CA for a fixed seed is pinned: a change to the key derivation or the certificate would change every cluster's CA")
    void pinnedForAFixedSeed() throws Exception {
        EtcdCa fixed = new EtcdCa(seed(0), new SecureRandom());
        String sha256 = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(fixed.certificate().getEncoded()));
        assertEquals(PINNED_CA_SHA256, sha256);
    }

    /** SHA-256 of the CA certificate (DER) for the seed 00 01 02 ... 1f. */
    private static final String PINNED_CA_SHA256 = "9816e2d78c187638e3c1f6187c76e26c64efb73511068a0d89aaf1e5510492cc";

    @Test
    @DisplayName("the CA key is HKDF-SHA256(seed, no salt, info \"sextant etcd CA P-256 private key \" || 0) times the base point, as an independent HKDF and P-256 (Python's cryptography) compute it")
    void keyMatchesAnIndependentDerivation() {
        EtcdCa fixed = new EtcdCa(seed(0), new SecureRandom());
        assertEquals(PYTHON_SPKI_FOR_SEED_0, HexFormat.of().formatHex(fixed.certificate().getPublicKey().getEncoded()));
    }

    /**
     * From {@code hmac}/{@code hashlib} HKDF and {@code ec.derive_private_key(d, SECP256R1())} in Python 3
     * (cryptography 48), SubjectPublicKeyInfo DER: computed outside this code, so a derivation that drifted
     * in both places at once is still caught.
     */
    private static final String PYTHON_SPKI_FOR_SEED_0 = "3059301306072a8648ce3d020106082a8648ce3d03010703420004"
            + "c091be721561305481c784405cd4928731a6829731fc1d8ffc2e30df3834c73868d20bdd3b3b3782681458f3eac065e4e20defae05da19bfb576d6205dcf044a";

    @Test
    @DisplayName("the CA certificate: fixed subject, serial 1, valid from 2026-01-01 to 9999-12-31, a CA of path length 0, self-signed")
    void caCertificate() throws Exception {
        X509Certificate c = ca.certificate();
        assertEquals("CN=sextant etcd CA", c.getSubjectX500Principal().getName());
        assertEquals(c.getSubjectX500Principal(), c.getIssuerX500Principal());
        assertEquals(1, c.getSerialNumber().intValueExact());
        assertEquals(EtcdCa.NOT_BEFORE, c.getNotBefore().toInstant());
        assertEquals(EtcdCa.NOT_AFTER, c.getNotAfter().toInstant());
        assertEquals(0, c.getBasicConstraints());
        assertTrue(c.getKeyUsage()[5], "keyCertSign");
        assertEquals("SHA256withECDSA", c.getSigAlgName());
        c.verify(c.getPublicKey());
    }

    @Test
    @DisplayName("a member certificate names the member, its DNS names and addresses plus localhost and 127.0.0.1, for server and client use")
    void memberCertificate() throws Exception {
        EtcdCredential member = ca.issueMember("cp-1", List.of("etcd-cp-1.internal.c0ffee"),
                List.of(InetAddress.getByName("10.0.0.5")), NOW, Duration.ofDays(30));
        X509Certificate c = member.certificate();
        c.verify(ca.certificate().getPublicKey());
        assertEquals("CN=cp-1", c.getSubjectX500Principal().getName());
        assertEquals(ca.certificate().getSubjectX500Principal(), c.getIssuerX500Principal());
        assertEquals(Set.of("2:etcd-cp-1.internal.c0ffee", "2:localhost", "7:10.0.0.5", "7:127.0.0.1"), sans(c));
        assertEquals(List.of(SERVER_AUTH, CLIENT_AUTH), c.getExtendedKeyUsage());
        assertEquals(-1, c.getBasicConstraints(), "not a CA");
        assertEquals("EC", member.privateKey().getAlgorithm());
    }

    @Test
    @DisplayName("a client certificate names the client and is for client use only; it carries no names to serve under")
    void clientCertificate() throws Exception {
        X509Certificate c = ca.issueClient("cp-2", NOW, Duration.ofDays(30)).certificate();
        c.verify(ca.certificate().getPublicKey());
        assertEquals("CN=cp-2", c.getSubjectX500Principal().getName());
        assertEquals(List.of(CLIENT_AUTH), c.getExtendedKeyUsage());
        assertEquals(null, c.getSubjectAlternativeNames());
    }

    @Test
    @DisplayName("an issued certificate is valid from 5 minutes before issue for the validity asked, and asks for renewal after two thirds of it")
    void validityAndRenewal() {
        EtcdCredential c = ca.issueClient("cp-0", NOW, EtcdCa.DEFAULT_VALIDITY);
        assertEquals(NOW.minus(EtcdCa.BACKDATE), c.certificate().getNotBefore().toInstant());
        assertEquals(NOW.plus(Duration.ofDays(30)), c.notAfter());
        Instant renewAt = NOW.minus(EtcdCa.BACKDATE).plus(Duration.ofDays(30).plus(EtcdCa.BACKDATE).multipliedBy(2).dividedBy(3));
        assertFalse(c.needsRenewal(renewAt.minusSeconds(1)));
        assertTrue(c.needsRenewal(renewAt));
        assertTrue(c.needsRenewal(c.notAfter().plusSeconds(1)));
    }

    @Test
    @DisplayName("every issue makes a fresh key and serial: two certificates for one member share neither")
    void freshKeyEveryIssue() {
        EtcdCredential a = ca.issueClient("cp-0", NOW, Duration.ofDays(1));
        EtcdCredential b = ca.issueClient("cp-0", NOW, Duration.ofDays(1));
        assertNotEquals(a.certificate().getSerialNumber(), b.certificate().getSerialNumber());
        assertFalse(java.util.Arrays.equals(a.privateKey().getEncoded(), b.privateKey().getEncoded()));
    }

    @Test
    @DisplayName("a seed that is not 32 bytes, a name etcd's flags could not carry and a validity of zero are refused")
    void refusedInputs() {
        assertThrows(IllegalArgumentException.class, () -> new EtcdCa(new byte[31], new SecureRandom()));
        assertThrows(IllegalArgumentException.class, () -> ca.issueClient("cp=0,evil", NOW, Duration.ofDays(1)));
        assertThrows(IllegalArgumentException.class, () -> ca.issueClient("cp-0", NOW, Duration.ZERO));
    }

    @Test
    @DisplayName("neither the CA nor an issued credential shows its private key in its string form")
    void noKeyInStrings() {
        EtcdCredential c = ca.issueClient("cp-0", NOW, Duration.ofDays(1));
        String hexKey = HexFormat.of().formatHex(c.privateKey().getEncoded());
        assertFalse(c.toString().contains(hexKey.substring(hexKey.length() - 20)));
        assertTrue(c.toString().contains("key redacted"));
        assertTrue(ca.toString().contains("private key redacted"));
    }

    private static Set<String> sans(X509Certificate c) throws Exception {
        Set<String> out = new TreeSet<>();
        for (List<?> san : c.getSubjectAlternativeNames()) {
            out.add(san.get(0) + ":" + san.get(1));
        }
        return out;
    }

    static byte[] seed(int first) {
        byte[] s = new byte[32];
        for (int i = 0; i < s.length; i++) {
            s[i] = (byte) (first + i);
        }
        return s;
    }
}
