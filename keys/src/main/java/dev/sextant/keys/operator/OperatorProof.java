package dev.sextant.keys.operator;

import dev.sextant.keys.member.MemberKey;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.regex.Pattern;

/**
 * The operator's proof for one call: an Ed25519 signature of the {@link OperatorCredential} over
 *
 * <pre>
 * u16 length ‖ "sextant-operator-v1" ‖ u16 length ‖ method name ‖ u32 length ‖ request bytes ‖ client TLS random (32)
 * </pre>
 *
 * The label separates it from everything else an Ed25519 key of the project signs; the method name
 * and the request bind it to this call (a proof for ClusterStatus is no proof for Revoke, nor for
 * Revoke of another node); the client's TLS random of this connection binds it to this handshake,
 * so a proof seen on one connection (a recording, a relaying join service) passes on no other.
 * Every variable field is length-prefixed, so no two calls share a signed message.
 *
 * @param signature the 64-byte signature, as it travels in the request's proof field
 */
public record OperatorProof(byte[] signature) {
    static final String LABEL = "sextant-operator-v1";
    /** TLS 1.2 and 1.3 randoms are 32 bytes. */
    public static final int TLS_RANDOM_BYTES = 32;
    /** A request is a few fields; this bounds what a verifier hashes for an unauthenticated caller. */
    public static final int MAX_REQUEST_BYTES = 64 * 1024;
    /** A gRPC full method name: {@code package.Service/Method}. */
    private static final Pattern METHOD = Pattern.compile("[A-Za-z0-9_.]{1,200}/[A-Za-z0-9_]{1,100}");

    /** Strict: exactly one signature's bytes; IllegalArgumentException otherwise. */
    public OperatorProof {
        if (signature.length != MemberKey.SIGNATURE_BYTES) {
            throw new IllegalArgumentException("operator proof is " + signature.length + " bytes, not "
                    + MemberKey.SIGNATURE_BYTES);
        }
        signature = signature.clone();
    }

    @Override
    public byte[] signature() {
        return signature.clone();
    }

    /** What the operator's key signs for {@code method} with {@code request} on the connection of {@code clientRandom}. */
    static byte[] signedMessage(String method, byte[] request, byte[] clientRandom) {
        if (!METHOD.matcher(method).matches()) {
            throw new IllegalArgumentException("'" + method + "' is not a gRPC method name (package.Service/Method)");
        }
        if (request.length > MAX_REQUEST_BYTES) {
            throw new IllegalArgumentException("operator request of " + request.length + " bytes exceeds "
                    + MAX_REQUEST_BYTES);
        }
        if (clientRandom.length != TLS_RANDOM_BYTES) {
            throw new IllegalArgumentException("a client TLS random is " + TLS_RANDOM_BYTES + " bytes, got "
                    + clientRandom.length);
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeUTF(LABEL);
            out.writeUTF(method);
            out.writeInt(request.length);
            out.write(request);
            out.write(clientRandom);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof OperatorProof p && java.util.Arrays.equals(signature, p.signature);
    }

    @Override
    public int hashCode() {
        return java.util.Arrays.hashCode(signature);
    }

    @Override
    public String toString() {
        return "OperatorProof[" + signature.length + " bytes]";
    }
}
