package dev.sextant.localcluster.qemu;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Keeps a node's consoles across boots. QEMU's {@code -serial file:} truncates the file it is given,
 * so before a boot the previous {@code console.log} becomes {@code console.<n>.log}, n counting boots
 * from 1: {@code console.log} is always the current boot, and an earlier boot keeps its name for good.
 */
public final class ConsoleHistory {
    private static final Pattern KEPT = Pattern.compile("console\\.(\\d+)\\.log");

    private ConsoleHistory() {
    }

    /** Moves a non-empty {@code console} aside; returns where it went (empty when there was nothing to keep). */
    public static Optional<Path> keepPrevious(Path console) throws IOException {
        if (!Files.exists(console)) {
            return Optional.empty();
        }
        if (Files.size(console) == 0) {
            Files.delete(console);
            return Optional.empty();
        }
        Path kept = console.resolveSibling("console." + (lastBoot(console.getParent()) + 1) + ".log");
        Files.move(console, kept);
        return Optional.of(kept);
    }

    /** {@code console} and the consoles kept beside it, the current boot first, then back to the first boot. */
    public static List<Path> newestFirst(Path console) throws IOException {
        List<Path> consoles = new ArrayList<>();
        consoles.add(console);
        for (int boot = lastBoot(console.getParent()); boot > 0; boot--) {
            Path kept = console.resolveSibling("console." + boot + ".log");
            if (Files.exists(kept)) {
                consoles.add(kept);
            }
        }
        return consoles;
    }

    /** The highest boot number kept in {@code dir}, 0 when none is. */
    static int lastBoot(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            return 0;
        }
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(f -> KEPT.matcher(f.getFileName().toString())).filter(Matcher::matches)
                    .mapToInt(m -> Integer.parseInt(m.group(1))).max().orElse(0);
        }
    }
}
