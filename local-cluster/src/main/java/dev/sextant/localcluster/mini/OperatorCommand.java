package dev.sextant.localcluster.mini;

import java.util.List;
import java.util.function.Consumer;

/**
 * One of the operator's own commands ({@code sextant init}, {@code sextant recover}) run with these
 * arguments, its output lines going to the consumer; returns its exit code. The CLI passes its
 * commands in, so mini initializes and recovers exactly as an operator does.
 */
@FunctionalInterface
public interface OperatorCommand {
    int run(List<String> args, Consumer<String> output) throws Exception;
}
