package dev.sextant.joinapi.binding;

import dev.sextant.grpcsupport.Refusal;
import java.util.Optional;

/**
 * Write-once bindings: who owns a disk UUID or a node name (the owner's AK name in hex), and the
 * reverse, which state disk and which node name an AK owns. First bind wins and bindings are never
 * deleted by the join service: a bind is not a key release, and removing one after a later failure
 * could let another machine take a UUID whose owner is retrying concurrently. Kept in the
 * Kubernetes API when the cluster has one, in a local directory when it has none.
 */
public interface BindingStore {
    enum Kind {
        /** disk UUID → AK name (hex) of the machine that owns it. */
        DISK("disk", "akName"),
        /** node name → AK name (hex) of the machine that owns it. */
        NODE("node", "akName"),
        /** AK name (hex) → the UUID of the one state disk that machine owns. */
        MACHINE_DISK("machine-disk", "diskUuid"),
        /** AK name (hex) → the one node name that machine owns. */
        MACHINE_NODE("machine-node", "nodeName"),
        /** AK name (hex) → the one role (control-plane or worker) that machine joined in. */
        MACHINE_ROLE("machine-role", "role");

        private final String label;
        private final String valueName;

        Kind(String label, String valueName) {
            this.label = label;
            this.valueName = valueName;
        }

        /** Object and file name prefix, and label value. */
        public String label() {
            return label;
        }

        /** What the bound value is, as the ConfigMap's data key. */
        public String valueName() {
            return valueName;
        }
    }

    /**
     * Binds {@code key} to {@code value} unless the key is already bound.
     *
     * @return the value the key is bound to now: {@code value}, or what an earlier bind stored
     */
    String bind(Kind kind, String key, String value) throws Refusal;

    /** The value the key is bound to, if any. */
    Optional<String> lookup(Kind kind, String key) throws Refusal;
}
