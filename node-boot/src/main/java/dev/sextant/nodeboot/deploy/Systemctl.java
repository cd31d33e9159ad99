package dev.sextant.nodeboot.deploy;

import dev.sextant.diskcrypt.CommandRunner;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/** The image's units, started through systemctl; what systemd knows about them when they do not serve. */
final class Systemctl {
    private final CommandRunner runner;

    Systemctl(CommandRunner runner) {
        this.runner = runner;
    }

    /** The units read their files under the services directory. */
    void start(List<String> units) throws ClusterServicesException, InterruptedException {
        CommandRunner.Result result = run("start", units);
        if (!result.ok()) {
            throw new ClusterServicesException("systemctl start " + String.join(" ", units) + " failed (exit "
                    + result.exitCode() + "): " + result.stderr().strip());
        }
    }

    /** The units' state and last log lines, for a message that says why they do not serve. */
    String status(List<String> units) throws ClusterServicesException, InterruptedException {
        List<String> args = new ArrayList<>(List.of("--no-pager", "--lines=30"));
        args.addAll(units);
        CommandRunner.Result status = run("status", args);
        return status.stdout() + status.stderr();
    }

    private CommandRunner.Result run(String verb, List<String> args) throws ClusterServicesException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("systemctl", verb));
        command.addAll(args);
        try {
            return runner.run(command, new byte[0]);
        } catch (IOException e) {
            throw new ClusterServicesException("cannot run " + String.join(" ", command) + ": " + e.getMessage(), e);
        }
    }
}
