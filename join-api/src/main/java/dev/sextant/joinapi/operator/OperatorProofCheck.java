package dev.sextant.joinapi.operator;

import com.google.protobuf.ByteString;
import dev.sextant.atls.HandshakeRandom;
import dev.sextant.grpcsupport.Refusal;
import dev.sextant.joinapi.controlplane.HandOverFiles;
import dev.sextant.keys.operator.OperatorVerifier;
import jakarta.inject.Singleton;
import java.util.Optional;

/**
 * Checks the operator's proof of a call (docs/re-attestation.md): the operator credential's signature over
 * the method's full name, the request without its proof and the client's TLS random of THIS connection, so
 * a proof passes for no other call and on no other connection. The operator's public key is derived from
 * the master secret at the first call (a join service without it refuses NO_MASTER_SECRET) and kept: it
 * is public, and the secret is not read again.
 */
@Singleton
public class OperatorProofCheck {
    private final HandOverFiles masterSecret;
    private volatile OperatorVerifier verifier;

    public OperatorProofCheck(HandOverFiles masterSecret) {
        this.masterSecret = masterSecret;
    }

    /** Returns when {@code proof} is the operator's for {@code method} with {@code requestWithoutProof} on this call's connection. */
    public void check(String method, byte[] requestWithoutProof, ByteString proof) throws Refusal {
        if (proof.isEmpty()) {
            throw new Refusal(OperatorRefusal.UNAUTHENTICATED, "the call to " + method
                    + " carries no operator proof: the operator's calls are signed with the key derived from the master secret");
        }
        Optional<byte[]> clientRandom = HandshakeRandom.currentClient();
        if (clientRandom.isEmpty()) {
            throw new Refusal(OperatorRefusal.UNAUTHENTICATED,
                    "this connection has no TLS random to bind the operator's proof to (the operator's service answers over aTLS only)");
        }
        try {
            verifier().verify(method, requestWithoutProof, clientRandom.get(), proof.toByteArray());
        } catch (IllegalArgumentException e) {
            // OperatorVerifier's messages say what was wrong and hold nothing secret.
            throw new Refusal(OperatorRefusal.UNAUTHENTICATED, e.getMessage());
        }
    }

    private OperatorVerifier verifier() throws Refusal {
        OperatorVerifier made = verifier;
        if (made == null) {
            made = new OperatorVerifier(masterSecret.operatorPublicKey());
            verifier = made;
        }
        return made;
    }
}
