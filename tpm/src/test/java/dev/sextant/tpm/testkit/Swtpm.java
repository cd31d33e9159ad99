package dev.sextant.tpm.testkit;

import dev.sextant.tpm.command.TpmClient;
import dev.sextant.tpm.provision.AkProvisioner;
import dev.sextant.tpm.swtpm.LocalCa;
import dev.sextant.tpm.swtpm.SwtpmManufacturer;
import dev.sextant.tpm.provision.ProvisioningException;
import dev.sextant.tpm.transport.SwtpmSocketTransport;
import org.junit.jupiter.api.Assumptions;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A real swtpm for tests: manufactured by swtpm_setup with an RSA EK whose certificate (NV
 * 0x01C00002) is signed by a fresh {@link LocalCa}, then served on free loopback ports. swtpm
 * serves one connection at a time, so share one {@link TpmClient} per Swtpm ({@link #client()}).
 * Closing kills the process and deletes the state.
 */
public final class Swtpm implements AutoCloseable {
    private static final String HOST = "127.0.0.1";

    private final Path dir;
    private final LocalCa ca;
    private Process process;
    private int port;
    private int ctrlPort;
    private TpmClient client;

    private Swtpm(Path dir, LocalCa ca) {
        this.dir = dir;
        this.ca = ca;
    }

    /** Skips the calling test, printing why, when swtpm or swtpm_setup is not installed. */
    public static void assumeAvailable() {
        for (String tool : List.of("swtpm", "swtpm_setup", "swtpm_localca")) {
            boolean present = onPath(tool);
            if (!present) {
                System.err.println("SKIPPED: " + tool + " is not on PATH (install swtpm and swtpm-tools: scripts/setup.sh)");
            }
            Assumptions.assumeTrue(present, tool + " is not on PATH (install swtpm and swtpm-tools: scripts/setup.sh)");
        }
    }

    public static boolean onPath(String tool) {
        return Stream.of(System.getenv().getOrDefault("PATH", "").split(":"))
                .anyMatch(d -> Files.isExecutable(Path.of(d, tool)));
    }

    /** A manufactured TPM with an EK certificate, no AK certificate yet. */
    public static Swtpm start() throws Exception {
        Path dir = Files.createTempDirectory("sextant-swtpm-");
        Swtpm tpm = new Swtpm(dir, LocalCa.create(dir.resolve("ca"), "Sextant Test EK CA"));
        try {
            SwtpmManufacturer.manufacture(dir, tpm.ca);
            tpm.launch();
            return tpm;
        } catch (Exception e) {
            tpm.close();
            throw e;
        }
    }

    /** A manufactured TPM whose AK certificate is provisioned (what a node has after the factory). */
    public static Swtpm provisioned() throws Exception {
        Swtpm tpm = start();
        try {
            new AkProvisioner(tpm.client(), tpm.ca.certificate(), tpm.ca.key()).provision();
            return tpm;
        } catch (ProvisioningException | IOException e) {
            tpm.close();
            throw e;
        }
    }

    // A free port found here can be taken by someone else before swtpm binds it; then swtpm exits
    // and a second try with new ports succeeds.
    private void launch() throws IOException, InterruptedException {
        for (int attempt = 1; ; attempt++) {
            try {
                launchOnce();
                return;
            } catch (IOException e) {
                stop();
                if (attempt == 3) {
                    throw e;
                }
            }
        }
    }

    private void launchOnce() throws IOException, InterruptedException {
        port = freePort();
        ctrlPort = freePort();
        Path log = dir.resolve("swtpm.log");
        process = new ProcessBuilder("swtpm", "socket", "--tpm2",
                "--tpmstate", "dir=" + dir.resolve("state").toAbsolutePath(),
                "--server", "type=tcp,port=" + port + ",bindaddr=" + HOST,
                "--ctrl", "type=tcp,port=" + ctrlPort + ",bindaddr=" + HOST,
                "--flags", "not-need-init,startup-clear")
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        waitUntilListening(log);
    }

    // swtpm opens its two ports one after the other; a probe connection is closed at once, which
    // hands swtpm's single data connection slot back before the real client connects.
    private void waitUntilListening(Path log) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        for (int probe : new int[] {ctrlPort, port}) {
            while (!listening(probe)) {
                if (!process.isAlive()) {
                    throw new IOException("swtpm exited with " + process.exitValue() + ": " + Files.readString(log));
                }
                if (System.nanoTime() > deadline) {
                    throw new IOException("swtpm did not listen on " + HOST + ":" + probe + " within 10 s");
                }
                Thread.sleep(20);
            }
        }
    }

    private static boolean listening(int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(HOST, port), 200);
            return true;
        } catch (IOException notYet) {
            return false;
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getByName(HOST))) {
            return s.getLocalPort();
        }
    }

    /** Stops swtpm (keeping its state) and starts it again on new ports: a "reboot" of the TPM. */
    public void restart() throws IOException, InterruptedException {
        stop();
        launch();
    }

    /** The shared client of this swtpm, opened on first use and closed by {@link #restart()}/{@link #close()}. */
    public synchronized TpmClient client() throws IOException {
        if (client == null) {
            client = new TpmClient(new SwtpmSocketTransport(HOST, port));
        }
        return client;
    }

    /**
     * Closes the shared client so another process or transport (e.g. the CLI given {@link #tpmArg()})
     * can connect; swtpm would otherwise hold that connection back until this one closes.
     */
    public synchronized void releaseClient() throws IOException {
        if (client != null) {
            client.close();
            client = null;
        }
    }

    public String host() { return HOST; }

    public int port() { return port; }

    public int ctrlPort() { return ctrlPort; }

    /** The CLI's {@code --tpm} argument for this TPM. */
    public String tpmArg() { return "swtpm:" + HOST + ":" + port; }

    public LocalCa ca() { return ca; }

    public Path dir() { return dir; }

    private synchronized void stop() throws IOException, InterruptedException {
        if (client != null) {
            client.close();
            client = null;
        }
        if (process != null) {
            process.destroy();
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor();
            }
            process = null;
        }
    }

    @Override
    public void close() throws IOException, InterruptedException {
        stop();
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
