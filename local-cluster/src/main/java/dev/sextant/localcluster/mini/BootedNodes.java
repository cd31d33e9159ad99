package dev.sextant.localcluster.mini;

import dev.sextant.localcluster.qemu.NodeConfig;
import dev.sextant.localcluster.qemu.QemuNode;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Collectors;

/**
 * The QEMU nodes one mini command powered on, and mini.json kept in step with them: every boot
 * records the node's processes there and its launch file beside it, so later commands find, stop
 * and boot it again. {@link #stopAll} stops only what this command started.
 */
final class BootedNodes {
    private final MiniLayout layout;
    private final Consumer<String> progress;
    private final Map<String, QemuNode> nodes = new LinkedHashMap<>();
    private volatile MiniState state;

    BootedNodes(MiniLayout layout, Consumer<String> progress, MiniState state) throws IOException {
        this.layout = layout;
        this.progress = progress;
        update(state);
    }

    QemuNode boot(String name, NodeRole role, NodeConfig config) throws IOException {
        NodeLaunch.of(config).write(layout.launch(name));
        QemuNode node = QemuNode.boot(config);
        synchronized (this) {
            nodes.put(name, node);
        }
        update(state.withNode(new MiniState.Node(name, role, node.hostPorts(), node.consoleLog().toString(),
                node.qemuRef(), node.swtpm().ref())));
        progress.accept(name + ": powered on (QEMU pid " + node.qemuRef().pid() + ", " + config.memoryMiB() + " MiB, "
                + config.accel().name().toLowerCase() + "; " + forwards(node.hostPorts()) + "; console "
                + node.consoleLog() + ")");
        return node;
    }

    QemuNode node(String name) {
        return nodes.get(name);
    }

    MiniState state() {
        return state;
    }

    void update(MiniState next) throws IOException {
        state = next;
        state.write(layout.stateFile());
    }

    synchronized void stopAll(String why) {
        if (nodes.isEmpty()) {
            return;
        }
        progress.accept(why + ": stopping the nodes it started (logs stay in " + layout.dir() + ")");
        nodes.values().forEach(QemuNode::close);
        nodes.clear();
        try {
            update(state.withPhase(MiniState.FAILED));
        } catch (IOException e) {
            progress.accept("cannot update " + layout.stateFile() + ": " + e.getMessage());
        }
    }

    /** "127.0.0.1:40000->7443 ...": host to guest port forwards, by guest port. */
    static String forwards(Map<Integer, Integer> guestToHost) {
        return guestToHost.entrySet().stream().sorted(Map.Entry.comparingByKey())
                .map(e -> "127.0.0.1:" + e.getValue() + "->" + e.getKey()).collect(Collectors.joining(" "));
    }
}
