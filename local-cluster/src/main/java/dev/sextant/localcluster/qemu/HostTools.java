package dev.sextant.localcluster.qemu;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The host programs and firmware a QEMU node needs. Found on PATH and in Debian's OVMF
 * package, so tests can skip with a reason instead of failing on a machine without them.
 */
public record HostTools(Path qemu, Path swtpm, Path ovmfCode, Path ovmfVars) {
    /** Debian's ovmf package: 4 MiB builds without Secure Boot keys (platform.md). */
    static final Path OVMF_DIR = Path.of("/usr/share/OVMF");

    /** Locates every tool, or explains in {@link #missing()} what is absent. */
    public static Optional<HostTools> locate() {
        return missing().isEmpty()
                ? Optional.of(new HostTools(onPath("qemu-system-x86_64").orElseThrow(),
                        onPath("swtpm").orElseThrow(), OVMF_DIR.resolve("OVMF_CODE_4M.fd"),
                        OVMF_DIR.resolve("OVMF_VARS_4M.fd")))
                : Optional.empty();
    }

    /** Human-readable reasons why {@link #locate()} is empty (empty list when all is present). */
    public static List<String> missing() {
        List<String> missing = new ArrayList<>();
        if (onPath("qemu-system-x86_64").isEmpty()) {
            missing.add("qemu-system-x86_64 not on PATH (Debian package qemu-system-x86)");
        }
        if (onPath("swtpm").isEmpty()) {
            missing.add("swtpm not on PATH (Debian package swtpm)");
        }
        for (String fd : List.of("OVMF_CODE_4M.fd", "OVMF_VARS_4M.fd")) {
            if (!Files.isReadable(OVMF_DIR.resolve(fd))) {
                missing.add(OVMF_DIR.resolve(fd) + " missing (Debian package ovmf)");
            }
        }
        return missing;
    }

    public static Optional<Path> onPath(String program) {
        String path = System.getenv().getOrDefault("PATH", "/usr/bin:/bin");
        for (String dir : path.split(":")) {
            Path candidate = Path.of(dir.isEmpty() ? "." : dir, program);
            if (Files.isExecutable(candidate)) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }
}
