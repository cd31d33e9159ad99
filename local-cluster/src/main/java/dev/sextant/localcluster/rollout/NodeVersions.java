package dev.sextant.localcluster.rollout;

import java.time.Duration;
import java.util.Optional;

/**
 * Which image a node proves it runs: the version of the image in the measurement set whose PCRs its
 * quote matched (docs/image-upgrades.md: what a node <em>proved</em>, never what its status line says).
 */
public interface NodeVersions {
    /** The version the node proves now, or empty if it does not answer or does not verify. */
    Optional<String> proven(String node) throws Exception;

    /**
     * Waits until the node, just powered on, is back with the state it had (same state disk, same since)
     * and verified, and returns the version it proved; throws, saying what it saw, when it is not by then.
     */
    String awaitBack(String node, Duration timeout) throws Exception;
}
