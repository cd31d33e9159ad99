package dev.sextant.cli.mini;

import java.io.Writer;
import java.util.function.Consumer;

/** A Writer that hands each complete line to a consumer (so a command's output becomes progress lines). */
final class LineWriter extends Writer {
    private final Consumer<String> lines;
    private final StringBuilder partial = new StringBuilder();

    LineWriter(Consumer<String> lines) {
        this.lines = lines;
    }

    @Override
    public synchronized void write(char[] buffer, int offset, int length) {
        for (int i = offset; i < offset + length; i++) {
            char c = buffer[i];
            if (c == '\n') {
                emit();
            } else if (c != '\r') {
                partial.append(c);
            }
        }
    }

    private void emit() {
        lines.accept(partial.toString());
        partial.setLength(0);
    }

    @Override
    public synchronized void flush() {
    }

    @Override
    public synchronized void close() {
        if (partial.length() > 0) {
            emit();
        }
    }
}
