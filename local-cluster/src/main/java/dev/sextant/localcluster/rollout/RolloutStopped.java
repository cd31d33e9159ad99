package dev.sextant.localcluster.rollout;

import java.nio.file.Path;

/**
 * A rollout that stopped at {@code node}, before moving it (it did not verify) or after (it was not back
 * on the new image in time). Nothing was retired; {@code rolledBack} says whether the node is back and
 * verified on its old image. Running the rollout again resumes with this node.
 */
public final class RolloutStopped extends Exception {
    private final String node;
    private final Path console;
    private final boolean rolledBack;

    RolloutStopped(String node, Path console, boolean rolledBack, String reason, Throwable cause) {
        super("the rollout stopped at " + node + ": " + reason + "; nothing was retired; console log: " + console, cause);
        this.node = node;
        this.console = console;
        this.rolledBack = rolledBack;
    }

    public String node() {
        return node;
    }

    public Path console() {
        return console;
    }

    public boolean rolledBack() {
        return rolledBack;
    }
}
