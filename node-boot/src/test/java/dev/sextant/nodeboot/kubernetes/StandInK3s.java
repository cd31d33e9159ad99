package dev.sextant.nodeboot.kubernetes;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;

/**
 * A stand-in k3s (no k3s binary is obtainable on these machines): a shell script that records its
 * argv and the config it was given, writes a kubeconfig for "server", and exits with a chosen code.
 */
public record StandInK3s(Path dir, Path binary, Path argvLog, Path configCopy, K3sSettings settings) {
    public static StandInK3s create(Path dir, int exitCode) throws IOException {
        return create(dir, exitCode, "apiVersion: v1\nkind: Config\nclusters: []\n");
    }

    /** A stand-in whose "server" writes {@code kubeconfig} (e.g. one naming a Kubernetes API double). */
    public static StandInK3s create(Path dir, int exitCode, String kubeconfigYaml) throws IOException {
        Path binary = dir.resolve("k3s");
        Path argv = dir.resolve("argv.log");
        Path configCopy = dir.resolve("config-seen.yaml");
        Path kubeconfig = dir.resolve("etc/k3s.yaml");
        String script = String.join("\n",
                "#!/bin/sh",
                "printf '%s\\n' \"$*\" >> '" + argv + "'",
                "cfg=''; prev=''",
                "for a in \"$@\"; do [ \"$prev\" = --config ] && cfg=\"$a\"; prev=\"$a\"; done",
                "cp \"$cfg\" '" + configCopy + "'",
                "if [ \"$1\" = server ] && [ " + exitCode + " = 0 ]; then",
                "  cp '" + dir.resolve("kubeconfig-to-write") + "' '" + kubeconfig + "'",
                "fi",
                "exit " + exitCode,
                "");
        Files.createDirectories(kubeconfig.getParent());
        Files.writeString(dir.resolve("kubeconfig-to-write"), kubeconfigYaml);
        Files.writeString(binary, script);
        Files.setPosixFilePermissions(binary, PosixFilePermissions.fromString("rwx------"));
        K3sSettings settings = new K3sSettings(binary, dir.resolve("etc/config.yaml"), kubeconfig,
                Duration.ofSeconds(10), Duration.ofMillis(500));
        return new StandInK3s(dir, binary, argv, configCopy, settings);
    }

    public List<String> invocations() throws IOException {
        return Files.exists(argvLog) ? Files.readAllLines(argvLog) : List.of();
    }
}
