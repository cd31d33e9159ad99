package dev.sextant.joinapi.binding;

import dev.sextant.joinapi.Refusal;
import java.util.Optional;

/**
 * Which attested machine (AK name) owns a disk UUID or a node name. First claim wins and bindings
 * are never deleted by the join service: a claim is not a key release, and removing one after a
 * later failure could let another machine take a UUID whose owner is retrying concurrently.
 * Kept in the Kubernetes API when the cluster has one, in a local directory when it has none.
 */
public interface BindingStore {
    enum Kind { DISK, NODE }

    /**
     * Binds {@code subject} to {@code akName} unless it is already bound.
     *
     * @return true if the subject is (now or already) bound to this AK, false if another AK holds it
     */
    boolean claim(Kind kind, String subject, byte[] akName) throws Refusal;

    /** The AK name the subject is bound to, if any. */
    Optional<byte[]> owner(Kind kind, String subject) throws Refusal;
}
