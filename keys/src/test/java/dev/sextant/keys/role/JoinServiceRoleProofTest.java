package dev.sextant.keys.role;

import dev.sextant.keys.KeyDerivation;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class JoinServiceRoleProofTest {
    private static final byte[] SECRET = bytes("master secret of cluster A.......");
    private static final byte[] SALT = bytes("master salt of cluster A........");
    private static final byte[] RANDOM = filled(32, 7);
    private static final byte[] SPKI = filled(32, 9);

    private final JoinServiceRoleKey key = JoinServiceRoleKey.of(SECRET, SALT);
    private final byte[] recorded = JoinServiceRoleProof.digestOf(key.publicKey());

    @Test
    @DisplayName("every holder of the master secret derives the same role key; another cluster's secret derives another")
    void derivedFromTheMasterSecret() {
        assertArrayEquals(key.publicKey(), JoinServiceRoleKey.of(SECRET, SALT).publicKey());
        assertFalse(Arrays.equals(key.publicKey(), JoinServiceRoleKey.of(bytes("master secret of cluster B......."), SALT).publicKey()));
    }

    @Test
    @DisplayName("the role key is no data key: no KMS key ID derives its seed")
    void notADataKey() {
        KeyDerivation derivation = new KeyDerivation(SECRET, SALT);
        assertFalse(Arrays.equals(derivation.joinServiceRoleSeed(), derivation.dataKey(KeyDerivation.JOIN_SERVICE_ROLE_INFO, 32)));
        assertFalse(Arrays.equals(derivation.joinServiceRoleSeed(), derivation.operatorCredentialSeed()));
    }

    @Test
    @DisplayName("a proof passes for the handshake and certificate it was made for, under the recorded key digest")
    void passes() {
        JoinServiceRoleProof proof = key.prove(RANDOM, SPKI);
        assertTrue(JoinServiceRoleProof.decode(proof.encode()).provesFor(recorded, RANDOM, SPKI));
        assertEquals(JoinServiceRoleProof.BYTES, proof.encode().length);
    }

    @Test
    @DisplayName("a proof fails on another handshake's random, for another certificate, and under another cluster's key digest")
    void boundToHandshakeAndCluster() {
        JoinServiceRoleProof proof = key.prove(RANDOM, SPKI);
        assertFalse(proof.provesFor(recorded, filled(32, 8), SPKI));
        assertFalse(proof.provesFor(recorded, RANDOM, filled(32, 10)));
        JoinServiceRoleKey other = JoinServiceRoleKey.of(bytes("master secret of cluster B......."), SALT);
        assertFalse(other.prove(RANDOM, SPKI).provesFor(recorded, RANDOM, SPKI));
        assertNotEquals(proof, other.prove(RANDOM, SPKI));
    }

    @Test
    @DisplayName("a proof of the wrong length is refused with its size")
    void strictLength() {
        var e = assertThrows(IllegalArgumentException.class, () -> JoinServiceRoleProof.decode(new byte[95]));
        assertTrue(e.getMessage().contains("96 bytes, got 95"), e.getMessage());
    }

    @Test
    @DisplayName("the key says nothing of itself in its string form")
    void redacted() {
        assertEquals("JoinServiceRoleKey[private key redacted]", key.toString());
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    private static byte[] filled(int n, int value) {
        byte[] b = new byte[n];
        Arrays.fill(b, (byte) value);
        return b;
    }
}
