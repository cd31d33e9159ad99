package dev.sextant.localcluster.mini.boot;

import dev.sextant.localcluster.mini.files.MiniLayout;
import dev.sextant.localcluster.mini.files.MiniState;
import dev.sextant.localcluster.mini.files.NodeLaunch;
import dev.sextant.localcluster.mini.node.NodeRole;
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
public final class BootedNodes {
    private final MiniLayout layout;
    private final Consumer<String> progress;
    private final Map<String, QemuNode> nodes = new LinkedHashMap<>();
    private volatile MiniState state;

    public BootedNodes(MiniLayout layout, Consumer<String> progress, MiniState state) throws IOException {
        this.layout = layout;
        this.progress = progress;
        update(state);
    }

    public QemuNode boot(String name, NodeRole role, NodeConfig config) throws IOException {
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

    public QemuNode node(String name) {
        return nodes.get(name);
    }

    public MiniState state() {
        return state;
    }

    public void update(MiniState next) throws IOException {
        state = next;
        state.write(layout.stateFile());
    }

    public synchronized void stopAll(String why) {
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

    /**
     * Guards a command that powers nodes on ({@code "mini up"}, {@code "mini start"}): the nodes are
     * stopped when the JVM exits first (Ctrl-C), and when the guard closes before
     * {@link Guard#succeeded}, unless {@code keepOnFailure}, which leaves them running to be looked at.
     */
    public Guard guard(String command, boolean keepOnFailure) {
        return new Guard(command, keepOnFailure);
    }

    /** See {@link #guard}. */
    public final class Guard implements AutoCloseable {
        private final String command;
        private final boolean keepOnFailure;
        private final Thread stopOnInterrupt;
        private boolean succeeded;

        private Guard(String command, boolean keepOnFailure) {
            this.command = command;
            this.keepOnFailure = keepOnFailure;
            this.stopOnInterrupt = new Thread(() -> stopAll(command + " was interrupted"),
                    command.replace(' ', '-') + "-interrupted");
            Runtime.getRuntime().addShutdownHook(stopOnInterrupt);
        }

        /** The command did what it was asked: its nodes keep running. */
        public void succeeded() {
            succeeded = true;
        }

        @Override
        public void close() throws IOException {
            try {
                Runtime.getRuntime().removeShutdownHook(stopOnInterrupt);
            } catch (IllegalStateException shuttingDown) {
                // The hook is running: it stops the nodes.
            }
            if (succeeded) {
                return;
            }
            if (keepOnFailure) {
                update(state.withPhase(MiniState.FAILED));
                progress.accept("--keep-on-failure: the nodes keep running; stop them with 'sextant mini down'");
            } else {
                stopAll(command + " failed");
            }
        }
    }

    /** "127.0.0.1:40000->7443 ...": host to guest port forwards, by guest port. */
    public static String forwards(Map<Integer, Integer> guestToHost) {
        return guestToHost.entrySet().stream().sorted(Map.Entry.comparingByKey())
                .map(e -> "127.0.0.1:" + e.getValue() + "->" + e.getKey()).collect(Collectors.joining(" "));
    }
}
