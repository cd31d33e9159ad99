package dev.sextant.images;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** The few {@code docker} CLI operations the registry path needs. */
final class Docker {
    private static final Duration PULL = Duration.ofMinutes(5);
    private static final Duration QUICK = Duration.ofSeconds(60);

    private Docker() {
    }

    static void pull(String image) throws IOException, InterruptedException {
        Command.check(PULL, "docker", "pull", "--quiet", image);
    }

    /** An image property, by Go template ({@code {{.Size}}}, {@code {{.Config.User}}}, ...). */
    static String inspect(String image, String template) throws IOException, InterruptedException {
        return Command.check(QUICK, "docker", "image", "inspect", "--format", template, image);
    }

    /**
     * Starts a detached container with each port published on 127.0.0.1 only (host → container), the
     * given read-only bind mounts (host → container path) and environment.
     */
    static void run(String name, String image, Map<Integer, Integer> ports, Map<String, String> mounts,
                    Map<String, String> env) throws IOException, InterruptedException {
        run(name, image, ports, mounts, Map.of(), env);
    }

    /** As above, with {@code writable} host directories mounted read-write (a socket's directory). */
    static void run(String name, String image, Map<Integer, Integer> ports, Map<String, String> mounts,
                    Map<String, String> writable, Map<String, String> env) throws IOException, InterruptedException {
        List<String> argv = new ArrayList<>(List.of("docker", "run", "--detach", "--name", name));
        ports.forEach((host, container) -> argv.addAll(List.of("--publish", "127.0.0.1:" + host + ":" + container)));
        mounts.forEach((host, container) -> argv.addAll(List.of("--volume", host + ":" + container + ":ro")));
        writable.forEach((host, container) -> argv.addAll(List.of("--volume", host + ":" + container + ":rw")));
        env.forEach((k, v) -> argv.addAll(List.of("--env", k + "=" + v)));
        argv.add(image);
        Command.check(QUICK, argv.toArray(String[]::new));
    }

    /** Runs {@code entrypoint args} as root (to see every file) in a throw-away container of {@code image}; returns its output. */
    static String runAsRoot(String image, String entrypoint, String... args) throws IOException, InterruptedException {
        List<String> argv = new ArrayList<>(List.of("docker", "run", "--rm", "--user", "0:0", "--entrypoint", entrypoint, image));
        argv.addAll(List.of(args));
        return Command.check(QUICK, argv.toArray(String[]::new));
    }

    static String logs(String name) {
        try {
            return Command.run(QUICK, List.of("docker", "logs", "--tail", "60", name)).output();
        } catch (IOException e) {
            return "(no logs: " + e.getMessage() + ")";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "(interrupted)";
        }
    }

    /** Removes containers and images by name; missing ones are fine (cleanup after partial failure). */
    static void removeQuietly(String kind, String... names) {
        for (String n : names) {
            try {
                Command.run(QUICK, List.of("docker", kind, "rm", "--force", n));
            } catch (IOException e) {
                System.out.println("images: could not remove " + kind + " " + n + ": " + e.getMessage());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
