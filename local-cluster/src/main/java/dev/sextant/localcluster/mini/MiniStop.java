package dev.sextant.localcluster.mini;

import dev.sextant.localcluster.mini.boot.PowerOff;
import dev.sextant.localcluster.mini.files.MiniLayout;
import dev.sextant.localcluster.mini.files.MiniState;
import dev.sextant.localcluster.mini.report.MiniFailure;
import java.util.function.Consumer;

/**
 * {@code sextant mini stop NODE}: one node powered off and left off, as a machine that failed: QEMU
 * and swtpm stopped, its state disk, volumes and TPM state kept. The rest of the cluster runs on;
 * {@code sextant mini reboot NODE} powers it on again.
 */
final class MiniStop {
    private final MiniLayout layout;
    private final Consumer<String> progress;

    MiniStop(MiniLayout layout, Consumer<String> progress) {
        this.layout = layout;
        this.progress = progress;
    }

    void stop(String name) throws Exception {
        MiniState state = MiniState.read(layout.stateFile()).orElseThrow(() -> new MiniFailure("no mini cluster in "
                + layout.dir() + "; start one with 'sextant mini up'"));
        MiniState.Node node = state.nodes().stream().filter(n -> n.name().equals(name)).findFirst()
                .orElseThrow(() -> new MiniFailure("no node " + name + " in the mini cluster in " + layout.dir()
                        + "; its nodes: " + state.nodes().stream().map(MiniState.Node::name).toList()));
        PowerOff powerOff = new PowerOff(progress);
        if (!powerOff.qemu(node) || !powerOff.swtpm(node)) {
            throw new MiniFailure(name + " could not be powered off (its processes survived SIGKILL)");
        }
        progress.accept(name + ": powered off and left off; its disks and TPM state are kept ('sextant mini reboot "
                + name + "' powers it on)");
    }
}
