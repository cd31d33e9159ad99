package dev.sextant.attestation;

import com.google.protobuf.ByteString;
import dev.sextant.attestation.digest.Sha256;
import dev.sextant.proto.v1.BatchStep;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The hash tree that lets one TPM quote answer several requests: each request's leaf is its
 * {@link Qualification}, a parent is SHA-256(0x01 ‖ left ‖ right), a level with an odd count carries
 * its last node up unchanged, and the quote's qualifying data is the root. A batch of one is its own
 * root, so a lone request is quoted exactly as it would be without batching.
 *
 * <p>Why a batched quote stays bound to its handshake: the verifier computes the leaf itself, from
 * the nonce it chose and the peer's key, and accepts only if the document's path leads from that
 * leaf to the signed root. Any other leaf under the same root would be a SHA-256 collision. A
 * parent's input is 65 bytes starting with 0x01; a Qualification's starts with the label's
 * big-endian length (0x00), so no parent is also a leaf.
 */
public final class QuoteBatch {
    /** Deepest path a verifier follows: 2^16 requests per quote, far more than any attester batches. */
    public static final int MAX_DEPTH = 16;
    public static final int HASH_BYTES = 32;
    private static final byte PARENT = 0x01;

    /** levels.get(0) are the leaves, the last level holds only the root. */
    private final List<List<byte[]>> levels;

    private QuoteBatch(List<List<byte[]>> levels) {
        this.levels = levels;
    }

    /** The tree over {@code leaves} (at least one, each {@value #HASH_BYTES} bytes), in this order. */
    public static QuoteBatch of(List<byte[]> leaves) {
        if (leaves.isEmpty()) {
            throw new IllegalArgumentException("a batch needs at least one leaf");
        }
        List<List<byte[]>> levels = new ArrayList<>();
        List<byte[]> level = List.copyOf(leaves);
        levels.add(level);
        while (level.size() > 1) {
            List<byte[]> up = new ArrayList<>((level.size() + 1) / 2);
            for (int i = 0; i < level.size(); i += 2) {
                up.add(i + 1 < level.size() ? parent(level.get(i), level.get(i + 1)) : level.get(i));
            }
            level = up;
            levels.add(level);
        }
        return new QuoteBatch(levels);
    }

    /** The qualifying data to quote. */
    public byte[] root() { return levels.get(levels.size() - 1).get(0).clone(); }

    /** The way from leaf {@code index} to the root, leaf side first; empty for a batch of one. */
    public List<BatchStep> path(int index) {
        List<BatchStep> path = new ArrayList<>();
        int at = index;
        for (List<byte[]> level : levels.subList(0, levels.size() - 1)) {
            int sibling = at ^ 1;
            if (sibling < level.size()) { // else: the odd last node, carried up unchanged
                path.add(BatchStep.newBuilder().setSibling(ByteString.copyFrom(level.get(sibling)))
                        .setSiblingOnLeft(sibling < at).build());
            }
            at /= 2;
        }
        return path;
    }

    /**
     * The root that {@code leaf} and {@code path} lead to. The caller checks the path's shape first
     * ({@link #defect}); this only hashes.
     */
    public static byte[] rootOf(byte[] leaf, List<BatchStep> path) {
        byte[] node = leaf;
        for (BatchStep step : path) {
            byte[] sibling = step.getSibling().toByteArray();
            node = step.getSiblingOnLeft() ? parent(sibling, node) : parent(node, sibling);
        }
        return node;
    }

    /** What is wrong with the shape of {@code path}: more than {@value #MAX_DEPTH} steps, or a sibling not a SHA-256. */
    public static Optional<String> defect(List<BatchStep> path) {
        if (path.size() > MAX_DEPTH) {
            return Optional.of("the batch path has " + path.size() + " steps, over the limit of " + MAX_DEPTH);
        }
        for (int i = 0; i < path.size(); i++) {
            int size = path.get(i).getSibling().size();
            if (size != HASH_BYTES) {
                return Optional.of("batch path step " + i + " holds " + size + " bytes, not " + HASH_BYTES);
            }
        }
        return Optional.empty();
    }

    private static byte[] parent(byte[] left, byte[] right) {
        return Sha256.of(new byte[] {PARENT}, left, right);
    }
}
