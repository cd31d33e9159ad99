package dev.sextant.nodeboot.deploy;

import dev.sextant.diskcrypt.CommandRunner;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * systemd for tests, for one unit: {@code systemctl start sextant-etcd.service} runs the image's own unit file
 * the way systemd would (its ConditionPathExists, its EnvironmentFile, its ExecStart with {@code $VAR} split at
 * whitespace), as a child process of the test, with the image's services directory mapped to the test's.
 * Every other unit "starts" at once; {@code systemctl status} answers with etcd's log. So a test runs etcd
 * from exactly the file the deployer wrote, through the unit that runs it on a node.
 */
public final class EtcdUnitAsProcess implements CommandRunner, AutoCloseable {
    /** The unit as the image ships it (tests run in the node-boot module's directory). */
    public static final Path UNIT_FILE = Path.of("..", "mkosi", "mkosi.extra", "usr", "lib", "systemd", "system", ControlPlaneEtcd.UNIT);
    /** The services directory the image's units name: node-boot's default. */
    public static final String IMAGE_SERVICES_DIR = "/var/lib/rancher/sextant/services";

    private final Path servicesDir;
    private final Path log;
    private final List<List<String>> commands = new ArrayList<>();
    private Process etcd;

    public EtcdUnitAsProcess(Path servicesDir, Path log) {
        this.servicesDir = servicesDir;
        this.log = log;
    }

    /** Every systemctl command, in order. */
    public synchronized List<List<String>> commands() {
        return List.copyOf(commands);
    }

    public Path log() {
        return log;
    }

    @Override
    public synchronized Result run(List<String> argv, byte[] stdin) throws IOException {
        commands.add(List.copyOf(argv));
        if (argv.size() >= 3 && argv.get(1).equals("start") && argv.contains(ControlPlaneEtcd.UNIT)) {
            startEtcd();
        }
        if (argv.size() >= 2 && argv.get(1).equals("status")) {
            return new Result(0, Files.exists(log) ? Files.readString(log) : "(no log)", "");
        }
        return new Result(0, "", "");
    }

    private void startEtcd() throws IOException {
        if (etcd != null && etcd.isAlive()) {
            return;
        }
        Map<String, String> unit = unit();
        if (!Files.exists(mapped(unit.get("ConditionPathExists")))) {
            return; // systemd skips a unit whose condition fails, and says the start succeeded
        }
        Map<String, String> environment = environmentFile(mapped(unit.get("EnvironmentFile")));
        List<String> command = new ArrayList<>();
        for (String word : unit.get("ExecStart").strip().split("\\s+")) {
            if (word.startsWith("$")) {
                String value = environment.getOrDefault(word.substring(1), "");
                for (String part : value.strip().split("\\s+")) {
                    if (!part.isEmpty()) {
                        command.add(part);
                    }
                }
            } else {
                command.add(word);
            }
        }
        Files.createDirectories(log.toAbsolutePath().getParent());
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        builder.environment().putAll(environment);
        etcd = builder.start();
    }

    /** The unit's settings (the last of each name wins; the unit sets each once). */
    static Map<String, String> unit() throws IOException {
        Map<String, String> settings = new LinkedHashMap<>();
        for (String line : Files.readAllLines(UNIT_FILE, StandardCharsets.UTF_8)) {
            String t = line.strip();
            if (t.isEmpty() || t.startsWith("#") || t.startsWith("[") || !t.contains("=")) {
                continue;
            }
            settings.put(t.substring(0, t.indexOf('=')), t.substring(t.indexOf('=') + 1));
        }
        return settings;
    }

    /** systemd's EnvironmentFile for unquoted values (the only kind the deployer writes): KEY=VALUE, trimmed. */
    static Map<String, String> environmentFile(Path file) throws IOException {
        Map<String, String> values = new LinkedHashMap<>();
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            String t = line.strip();
            if (t.isEmpty() || t.startsWith("#") || t.startsWith(";") || !t.contains("=")) {
                continue;
            }
            String value = t.substring(t.indexOf('=') + 1).strip();
            if (value.matches(".*[\"'\\\\$].*")) {
                throw new IllegalStateException("this stand-in for systemd reads unquoted values without escapes only: " + t);
            }
            values.put(t.substring(0, t.indexOf('=')).strip(), value);
        }
        return values;
    }

    private Path mapped(String imagePath) {
        if (!imagePath.startsWith(IMAGE_SERVICES_DIR + "/")) {
            throw new IllegalStateException(UNIT_FILE + " names " + imagePath + ", outside " + IMAGE_SERVICES_DIR);
        }
        return servicesDir.resolve(imagePath.substring(IMAGE_SERVICES_DIR.length() + 1));
    }

    /** SIGTERM and wait, as systemd stops the unit at shutdown. */
    public synchronized void stop() throws InterruptedException {
        if (etcd != null && etcd.isAlive()) {
            etcd.destroy();
            if (!etcd.waitFor(10, TimeUnit.SECONDS)) {
                etcd.destroyForcibly().waitFor();
            }
        }
    }

    @Override
    public void close() throws InterruptedException {
        stop();
    }
}
