package dev.sextant.nodeboot.nodelock;

import java.io.IOException;

/**
 * Remembers a first membership's state disk in the node's TPM. Called by the {@link NodeLock}
 * after it is taken and before PCR 15 is marked: the record's write policy demands PCR 15 = 0, so
 * nothing after the mark (no rejoin, no recovery, no code the host reaches later) can write it.
 */
@FunctionalInterface
public interface FirstBootstrapRecorder {
    void remember(FirstBootstrap first) throws IOException;
}
