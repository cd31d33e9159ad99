package dev.sextant.localcluster.mini.operator;

import dev.sextant.localcluster.init.InitResult;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The operator's own {@code sextant init} run with these arguments, its output lines going to the
 * consumer. The CLI passes it in, so mini initializes exactly as an operator does, and takes the
 * cluster ID from the node's answer rather than from what the command printed.
 */
@FunctionalInterface
public interface OperatorInit {
    Outcome run(List<String> args, Consumer<String> output) throws Exception;

    /** The command's exit code, and the node's answer when it initialized the node (exit 0). */
    record Outcome(int exit, Optional<InitResult> initialized) {
    }
}
