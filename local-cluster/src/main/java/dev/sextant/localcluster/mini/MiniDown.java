package dev.sextant.localcluster.mini;

import dev.sextant.localcluster.mini.boot.PowerOff;
import dev.sextant.localcluster.mini.files.FileTrees;
import dev.sextant.localcluster.mini.files.MiniLayout;
import dev.sextant.localcluster.mini.files.MiniState;
import java.io.IOException;
import java.nio.file.Files;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * {@code sextant mini down}: stops every process mini.json names (QEMU first, then its swtpm). The
 * files stay (so {@code mini start} can boot the cluster again) unless {@code purge}.
 */
final class MiniDown {
    private final MiniLayout layout;
    private final Consumer<String> progress;

    MiniDown(MiniLayout layout, Consumer<String> progress) {
        this.layout = layout;
        this.progress = progress;
    }

    /** Returns 0 when nothing of the cluster runs any more. */
    int down(boolean purge) throws IOException {
        Optional<MiniState> read = MiniState.read(layout.stateFile());
        if (read.isEmpty()) {
            progress.accept("no mini cluster in " + layout.dir() + " (no " + layout.stateFile().getFileName() + ")");
            if (purge && Files.isDirectory(layout.dir())) {
                FileTrees.delete(layout.dir());
                progress.accept("removed " + layout.dir());
            }
            return 0;
        }
        MiniState state = read.get();
        PowerOff powerOff = new PowerOff(progress);
        boolean allStopped = true;
        for (MiniState.Node node : state.nodes()) {
            allStopped &= powerOff.qemu(node);
            allStopped &= powerOff.swtpm(node);
        }
        if (!allStopped) {
            state.write(layout.stateFile());
            progress.accept("some processes survived SIGKILL; mini.json is kept so 'sextant mini down' can retry");
            return 1;
        }
        state.withPhase(MiniState.STOPPED).write(layout.stateFile());
        if (purge) {
            FileTrees.delete(layout.dir());
            progress.accept("removed " + layout.dir() + " (CA, keys, secrets, node states, logs)");
        } else {
            progress.accept("stopped; files stay in " + layout.dir() + " (console logs, TPM states, disks);"
                    + " 'sextant mini start' boots the cluster again, 'sextant mini down --purge' removes them");
        }
        return 0;
    }
}
