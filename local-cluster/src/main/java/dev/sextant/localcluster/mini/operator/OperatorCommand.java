package dev.sextant.localcluster.mini.operator;

import java.util.List;
import java.util.function.Consumer;

/**
 * One of the operator's own commands ({@code sextant recover}) run with these arguments, its output
 * lines going to the consumer; returns its exit code. The CLI passes its commands in, so mini
 * recovers exactly as an operator does ({@link OperatorInit} is the one whose answer mini reads).
 */
@FunctionalInterface
public interface OperatorCommand {
    int run(List<String> args, Consumer<String> output) throws Exception;
}
