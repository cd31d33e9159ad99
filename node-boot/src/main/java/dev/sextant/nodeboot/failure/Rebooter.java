package dev.sextant.nodeboot.failure;

import java.io.IOException;

/** Restarts the machine; a seam so tests can observe the reboot instead of suffering it. */
@FunctionalInterface
public interface Rebooter {
    void reboot() throws IOException;
}
