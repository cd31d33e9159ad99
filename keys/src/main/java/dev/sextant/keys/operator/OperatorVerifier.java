package dev.sextant.keys.operator;

import dev.sextant.keys.member.MemberKey;

/**
 * Checks the operator's proofs on the service side, with the operator credential's public key
 * (derived from the master secret the same way the operator derives the private key). A service
 * maps every refusal to UNAUTHENTICATED; the messages say what was wrong and hold nothing secret.
 */
public final class OperatorVerifier {
    private final byte[] operatorPublicKey;

    public OperatorVerifier(byte[] operatorPublicKey) {
        this.operatorPublicKey = MemberKey.checkPublicKey(operatorPublicKey);
    }

    /**
     * Returns when {@code proof} is the operator's for {@code method} with {@code request} on the
     * connection whose client TLS random is {@code clientRandom}; otherwise IllegalArgumentException
     * saying why (a malformed proof, or one that is not the operator's for this call on this connection).
     */
    public void verify(String method, byte[] request, byte[] clientRandom, byte[] proof) {
        if (proof == null || proof.length == 0) {
            throw new IllegalArgumentException("the call to " + method + " carries no operator proof");
        }
        OperatorProof parsed = new OperatorProof(proof);
        byte[] message = OperatorProof.signedMessage(method, request, clientRandom);
        if (!MemberKey.verify(operatorPublicKey, message, parsed.signature())) {
            throw new IllegalArgumentException("the operator proof is not the operator credential's for " + method
                    + " with this request on this connection");
        }
    }
}
