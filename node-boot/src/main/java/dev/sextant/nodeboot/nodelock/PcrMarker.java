package dev.sextant.nodeboot.nodelock;

import java.io.IOException;

/** Records on the node's TPM that it now belongs to a cluster (design decision 7: PCR 15). */
@FunctionalInterface
public interface PcrMarker {
    void mark(byte[] clusterId) throws IOException;

    /** True when this boot's TPM already carries a mark (PCRs reset only on reboot). */
    default boolean alreadyMarked() throws IOException {
        return false;
    }
}
