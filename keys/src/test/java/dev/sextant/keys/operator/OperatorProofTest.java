package dev.sextant.keys.operator;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.sextant.keys.KeyDerivation;
import dev.sextant.keys.member.MemberKey;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Arrays;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * The operator's credential and its proofs: one proof passes for one call with one request on one
 * connection, made with the key of one master secret; everything else is refused with a message
 * saying why.
 */
@DisplayName("OperatorProof: the operator's proof is bound to the call, the request and the handshake")
class OperatorProofTest {
    private static final String STATUS = "sextant.operator.OperatorService/ClusterStatus";
    private static final String REVOKE = "sextant.operator.OperatorService/Revoke";

    private final byte[] masterSecret = random(32);
    private final byte[] masterSalt = random(32);
    private final OperatorCredential operator = OperatorCredential.of(masterSecret, masterSalt);
    /** The service's side: the same public key, derived from the master secret on its own. */
    private final OperatorVerifier service = new OperatorVerifier(
            new OperatorCredential(new KeyDerivation(masterSecret, masterSalt)).publicKey());
    private final byte[] revokeW0 = "node=worker-0".getBytes(StandardCharsets.UTF_8);
    private final byte[] clientRandom = random(32);

    @Test
    @DisplayName("the operator's proof verifies with the public key the service derives from the same master secret")
    void proofVerifies() {
        service.verify(REVOKE, revokeW0, clientRandom, operator.prove(REVOKE, revokeW0, clientRandom).signature());
    }

    @Test
    @DisplayName("the credential is HKDF-SHA256(master secret, master salt, 'sextant operator credential v1') as an Ed25519 seed, outside every data key's info")
    void derivation() {
        byte[] seed = KeyDerivation.hkdfSha256(masterSecret, masterSalt,
                "sextant operator credential v1".getBytes(StandardCharsets.UTF_8), 32);
        assertArrayEquals(new MemberKey(seed).publicKey(), operator.publicKey());
        assertFalse(Arrays.equals(seed, new KeyDerivation(masterSecret, masterSalt).dataKey(
                "sextant operator credential v1", 32)), "a data key of the same name is another key");
        assertEquals("OperatorCredential[private key redacted]", operator.toString());
    }

    @Test
    @DisplayName("a proof for one method offered for another is refused: Revoke's proof is no proof for ClusterStatus")
    void anotherMethodIsRefused() {
        byte[] proof = operator.prove(STATUS, revokeW0, clientRandom).signature();
        refused("the operator proof is not the operator credential's for " + REVOKE + " with this request on this connection",
                () -> service.verify(REVOKE, revokeW0, clientRandom, proof));
    }

    @Test
    @DisplayName("a proof for one request offered with another is refused: revoking worker-0's proof does not revoke worker-1")
    void anotherRequestIsRefused() {
        byte[] proof = operator.prove(REVOKE, revokeW0, clientRandom).signature();
        refused("the operator proof is not the operator credential's for " + REVOKE + " with this request on this connection",
                () -> service.verify(REVOKE, "node=worker-1".getBytes(StandardCharsets.UTF_8), clientRandom, proof));
    }

    @Test
    @DisplayName("a proof from one connection replayed on another (another client TLS random) is refused")
    void anotherConnectionIsRefused() {
        byte[] proof = operator.prove(REVOKE, revokeW0, clientRandom).signature();
        refused("the operator proof is not the operator credential's for " + REVOKE + " with this request on this connection",
                () -> service.verify(REVOKE, revokeW0, random(32), proof));
    }

    @Test
    @DisplayName("a proof made with another master secret's credential is refused")
    void anotherMasterSecretIsRefused() {
        byte[] proof = OperatorCredential.of(random(32), masterSalt).prove(REVOKE, revokeW0, clientRandom).signature();
        refused("the operator proof is not the operator credential's for " + REVOKE + " with this request on this connection",
                () -> service.verify(REVOKE, revokeW0, clientRandom, proof));
    }

    @Test
    @DisplayName("a proof whose method and request boundary moved (same bytes, split elsewhere) is refused: every field is length-prefixed")
    void fieldBoundariesAreSigned() {
        byte[] proof = operator.prove("a.B/C", "xy".getBytes(StandardCharsets.UTF_8), clientRandom).signature();
        refused("the operator proof is not the operator credential's for a.B/Cx with this request on this connection",
                () -> service.verify("a.B/Cx", "y".getBytes(StandardCharsets.UTF_8), clientRandom, proof));
    }

    @Test
    @DisplayName("malformed proofs are refused, naming what is wrong: missing, empty, short, long, or a valid signature with one bit flipped")
    void malformedProofsAreRefused() {
        refused("the call to " + REVOKE + " carries no operator proof", () -> service.verify(REVOKE, revokeW0, clientRandom, null));
        refused("the call to " + REVOKE + " carries no operator proof", () -> service.verify(REVOKE, revokeW0, clientRandom, new byte[0]));
        byte[] proof = operator.prove(REVOKE, revokeW0, clientRandom).signature();
        refused("operator proof is 63 bytes, not 64", () -> service.verify(REVOKE, revokeW0, clientRandom, Arrays.copyOf(proof, 63)));
        refused("operator proof is 65 bytes, not 64", () -> service.verify(REVOKE, revokeW0, clientRandom, Arrays.copyOf(proof, 65)));
        proof[10] ^= 1;
        refused("the operator proof is not the operator credential's for " + REVOKE + " with this request on this connection",
                () -> service.verify(REVOKE, revokeW0, clientRandom, proof));
    }

    @Test
    @DisplayName("a call described wrongly is refused before any signature check: not a gRPC method name, a TLS random not 32 bytes, a request over 64 KiB")
    void malformedCallsAreRefused() {
        byte[] proof = operator.prove(REVOKE, revokeW0, clientRandom).signature();
        refused("'Revoke' is not a gRPC method name (package.Service/Method)",
                () -> service.verify("Revoke", revokeW0, clientRandom, proof));
        refused("a client TLS random is 32 bytes, got 31", () -> service.verify(REVOKE, revokeW0, random(31), proof));
        refused("operator request of 65537 bytes exceeds 65536",
                () -> service.verify(REVOKE, new byte[65537], clientRandom, proof));
        refused("a client TLS random is 32 bytes, got 0", () -> operator.prove(REVOKE, revokeW0, new byte[0]));
    }

    private static void refused(String message, Executable call) {
        assertEquals(message, assertThrows(IllegalArgumentException.class, call).getMessage());
    }

    private static byte[] random(int length) {
        byte[] bytes = new byte[length];
        new SecureRandom().nextBytes(bytes);
        return bytes;
    }
}
