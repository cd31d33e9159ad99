package dev.sextant.attestation.verify.attacks;

import com.google.protobuf.ByteString;
import dev.sextant.attestation.Purpose;
import dev.sextant.attestation.testkit.SoftwareTpmAttester;
import dev.sextant.attestation.verify.AkTrust;
import dev.sextant.attestation.verify.AttestationRejected;
import dev.sextant.attestation.verify.DocumentVerifier;
import dev.sextant.attestation.verify.Reason;
import dev.sextant.attestation.verify.VerifierPolicy;
import dev.sextant.proto.v1.AttestationDocument;
import dev.sextant.proto.v1.BatchStep;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.List;
import java.util.function.UnaryOperator;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Attacks on batched quotes: one TPM quote serves the handshakes that waited for it, and
 * each document carries the path from its handshake's qualification to the quoted root. A path is
 * attacker-controlled bytes; the verifier computes the leaf itself, so no path may make a quote
 * count for a handshake, key or purpose it was not made for.
 */
@DisplayName("Attacks on batched quotes")
class BatchPathAttacksTest {
    private static final Purpose PURPOSE = Purpose.ATLS_SERVER;
    private static final byte[] USER_DATA = "SHA-256 of the server's TLS key".getBytes(StandardCharsets.UTF_8);
    private static final List<byte[]> NONCES = IntStream.range(0, 5)
            .mapToObj(i -> ("ClientHello.random of handshake " + i).getBytes(StandardCharsets.UTF_8)).toList();

    private static SoftwareTpmAttester node;
    private static DocumentVerifier verifier;
    private static List<AttestationDocument> batch;

    @BeforeAll
    static void oneQuoteForFiveHandshakes() {
        node = new SoftwareTpmAttester();
        verifier = new DocumentVerifier(new VerifierPolicy(node.measurements(), AkTrust.ekCa(node.anchors())));
        batch = node.attestTogether(PURPOSE, NONCES, USER_DATA);
    }

    @Test
    @DisplayName("every document of a batch of five verifies in its own handshake")
    void everyDocumentVerifies() throws Exception {
        for (int i = 0; i < NONCES.size(); i++) {
            verifier.verify(batch.get(i).toByteArray(), PURPOSE, NONCES.get(i), USER_DATA);
        }
    }

    @Test
    @DisplayName("a batch-mate's document offered in this handshake is refused: its path leads from another nonce")
    void batchMatesDocument() {
        assertRejected(Reason.NONCE_MISMATCH, batch.get(1), NONCES.get(0), PURPOSE);
    }

    @Test
    @DisplayName("this handshake's document carrying a batch-mate's path is refused")
    void batchMatesPath() {
        assertRejected(Reason.NONCE_MISMATCH, withPath(batch.get(0), p -> batch.get(1).getBatchPathList()),
                NONCES.get(0), PURPOSE);
    }

    @Test
    @DisplayName("a path cut short, so that an inner node would stand for the root, is refused")
    void pathCutShort() {
        assertRejected(Reason.NONCE_MISMATCH, withPath(batch.get(0), p -> p.subList(0, p.size() - 1)),
                NONCES.get(0), PURPOSE);
    }

    @Test
    @DisplayName("a path with one step's side flipped is refused")
    void sideFlipped() {
        assertRejected(Reason.NONCE_MISMATCH, withPath(batch.get(0), p -> {
            List<BatchStep> flipped = new java.util.ArrayList<>(p);
            flipped.set(0, p.get(0).toBuilder().setSiblingOnLeft(!p.get(0).getSiblingOnLeft()).build());
            return flipped;
        }), NONCES.get(0), PURPOSE);
    }

    @Test
    @DisplayName("a path stretched by one more step is refused")
    void pathStretched() {
        assertRejected(Reason.NONCE_MISMATCH, withPath(batch.get(0), p -> {
            List<BatchStep> longer = new java.util.ArrayList<>(p);
            longer.add(sibling(32));
            return longer;
        }), NONCES.get(0), PURPOSE);
    }

    @Test
    @DisplayName("a path of more than 16 steps is refused as malformed, naming the limit, not as a mismatch")
    void pathTooDeep() {
        AttestationRejected r = assertRejected(Reason.MALFORMED,
                withPath(batch.get(0), p -> Collections.nCopies(17, sibling(32))), NONCES.get(0), PURPOSE);
        assertTrue(r.getMessage().contains("17 steps, over the limit of 16"), r::getMessage);
    }

    @Test
    @DisplayName("a path step whose sibling is not a SHA-256 is refused")
    void siblingNotAHash() {
        AttestationRejected r = assertRejected(Reason.MALFORMED,
                withPath(batch.get(0), p -> List.of(sibling(33))), NONCES.get(0), PURPOSE);
        assertTrue(r.getMessage().contains("holds 33 bytes, not 32"), r::getMessage);
    }

    @Test
    @DisplayName("a VerifyService answer batched under the same quote cannot be offered as aTLS evidence")
    void otherPurposeInTheBatch() {
        List<AttestationDocument> verifyAnswers = node.attestTogether(Purpose.VERIFY, NONCES, USER_DATA);

        AttestationRejected r = assertRejected(Reason.WRONG_PURPOSE, verifyAnswers.get(2), NONCES.get(2), PURPOSE);
        assertTrue(r.getMessage().contains("made for purpose \"sextant/verify/v1\""), r::getMessage);
    }

    private static AttestationRejected assertRejected(Reason reason, AttestationDocument doc, byte[] nonce, Purpose purpose) {
        AttestationRejected r = assertThrows(AttestationRejected.class,
                () -> verifier.verify(doc.toByteArray(), purpose, nonce, USER_DATA));
        assertEquals(reason, r.reason(), r::toString);
        return r;
    }

    private static AttestationDocument withPath(AttestationDocument doc, UnaryOperator<List<BatchStep>> change) {
        return doc.toBuilder().clearBatchPath().addAllBatchPath(change.apply(doc.getBatchPathList())).build();
    }

    private static BatchStep sibling(int bytes) {
        return BatchStep.newBuilder().setSibling(ByteString.copyFrom(new byte[bytes])).build();
    }
}
