package dev.sextant.localcluster.mini.node;

import java.util.List;
import java.util.Optional;

/**
 * What a control plane's console says last of its etcd data volume: housekeeping's DataVolumeMounter logs
 * every step as {@code Data volume: ...} (formatting a new volume, mounted, or why it waits and when it looks
 * again), and the mount is its last word on a good boot. Like the status line it is what the node says, not
 * evidence.
 */
public final class DataVolumeLine {
    private static final String MARK = "Data volume:";

    private DataVolumeLine() {
    }

    /** The text after the mark of the last such line of {@code console}; empty when the node said nothing of it. */
    public static Optional<String> last(List<String> console) {
        for (int i = console.size() - 1; i >= 0; i--) {
            String line = console.get(i);
            int mark = line.indexOf(MARK);
            if (mark >= 0) {
                return Optional.of(line.substring(mark + MARK.length()).strip());
            }
        }
        return Optional.empty();
    }
}
