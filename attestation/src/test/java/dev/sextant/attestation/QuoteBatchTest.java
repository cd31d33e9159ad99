package dev.sextant.attestation;

import com.google.protobuf.ByteString;
import dev.sextant.proto.v1.BatchStep;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class QuoteBatchTest {
    private static List<byte[]> leaves(int n) {
        return IntStream.range(0, n).mapToObj(i -> Qualification.of(Purpose.ATLS_SERVER,
                ("nonce " + i).getBytes(StandardCharsets.UTF_8), new byte[32])).toList();
    }

    @Test
    @DisplayName("a batch of one is its own root with an empty path: a lone request is quoted as without batching")
    void batchOfOne() {
        byte[] leaf = leaves(1).get(0);
        QuoteBatch batch = QuoteBatch.of(List.of(leaf));

        assertArrayEquals(leaf, batch.root());
        assertTrue(batch.path(0).isEmpty());
    }

    @ParameterizedTest(name = "every leaf of a batch of {0} leads to the root, and only its own path does")
    @ValueSource(ints = {2, 3, 5, 8, 9, 64})
    void everyLeafLeadsToTheRoot(int n) {
        List<byte[]> leaves = leaves(n);
        QuoteBatch batch = QuoteBatch.of(leaves);

        for (int i = 0; i < n; i++) {
            List<BatchStep> path = batch.path(i);
            assertArrayEquals(batch.root(), QuoteBatch.rootOf(leaves.get(i), path), "leaf " + i);
            assertTrue(path.size() <= 32 - Integer.numberOfLeadingZeros(n - 1), "path of leaf " + i + " too long");
            int other = (i + 1) % n;
            assertFalse(java.util.Arrays.equals(batch.root(), QuoteBatch.rootOf(leaves.get(other), path)),
                    "leaf " + other + " must not reach the root by leaf " + i + "'s path");
        }
    }

    @Test
    @DisplayName("the root depends on the order of the leaves")
    void orderMatters() {
        List<byte[]> leaves = new ArrayList<>(leaves(4));
        byte[] root = QuoteBatch.of(leaves).root();
        Collections.swap(leaves, 0, 1);

        assertFalse(java.util.Arrays.equals(root, QuoteBatch.of(leaves).root()));
    }

    @Test
    @DisplayName("names a path deeper than 16 steps or a sibling that is not 32 bytes, and accepts a sound one")
    void namesMalformedPaths() {
        BatchStep sound = BatchStep.newBuilder().setSibling(ByteString.copyFrom(new byte[32])).build();
        BatchStep shortSibling = BatchStep.newBuilder().setSibling(ByteString.copyFrom(new byte[31])).build();

        assertTrue(QuoteBatch.defect(Collections.nCopies(16, sound)).isEmpty());
        assertEquals("the batch path has 17 steps, over the limit of 16",
                QuoteBatch.defect(Collections.nCopies(17, sound)).orElseThrow());
        assertEquals("batch path step 1 holds 31 bytes, not 32",
                QuoteBatch.defect(List.of(sound, shortSibling)).orElseThrow());
    }
}
