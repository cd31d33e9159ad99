package dev.sextant.tpmmanufacturer.swtpm;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * A swtpm process serving raw TPM commands on a free loopback TCP port (what {@code swtpm:HOST:PORT}
 * and the tpm2-tss "swtpm" TCTI speak), over an existing state directory. For provisioning a TPM
 * before a VM boots it, and for tests. swtpm serves one data connection at a time.
 */
public final class SwtpmServer implements AutoCloseable {
    public static final String HOST = "127.0.0.1";
    private static final long LISTEN_TIMEOUT_SECONDS = 10;
    private static final int ATTEMPTS = 3;

    private final Process process;
    private final int port;
    private final int ctrlPort;

    private SwtpmServer(Process process, int port, int ctrlPort) {
        this.process = process;
        this.port = port;
        this.ctrlPort = ctrlPort;
    }

    /**
     * Starts swtpm on {@code stateDir} and returns once both its ports accept connections. A free
     * port found here can be taken by someone else before swtpm binds it; swtpm then exits and the
     * next attempt picks new ports.
     */
    public static SwtpmServer start(Path stateDir, Path log) throws IOException, InterruptedException {
        for (int attempt = 1; ; attempt++) {
            int port = freePort();
            int ctrlPort = freePort();
            Process process = new ProcessBuilder("swtpm", "socket", "--tpm2",
                    "--tpmstate", "dir=" + stateDir.toAbsolutePath(),
                    "--server", "type=tcp,port=" + port + ",bindaddr=" + HOST,
                    "--ctrl", "type=tcp,port=" + ctrlPort + ",bindaddr=" + HOST,
                    "--flags", "not-need-init,startup-clear")
                    .redirectErrorStream(true).redirectOutput(log.toFile()).start();
            SwtpmServer server = new SwtpmServer(process, port, ctrlPort);
            try {
                server.awaitListening(log);
                return server;
            } catch (IOException e) {
                server.close();
                if (attempt == ATTEMPTS) {
                    throw e;
                }
            }
        }
    }

    // swtpm opens its two ports one after the other; a probe connection is closed at once, which
    // hands swtpm's single data connection slot back before the real client connects.
    private void awaitListening(Path log) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(LISTEN_TIMEOUT_SECONDS);
        for (int probe : new int[] {ctrlPort, port}) {
            while (!listening(probe)) {
                if (!process.isAlive()) {
                    throw new IOException("swtpm exited with " + process.exitValue() + ": " + Files.readString(log));
                }
                if (System.nanoTime() > deadline) {
                    throw new IOException("swtpm did not listen on " + HOST + ":" + probe + " within "
                            + LISTEN_TIMEOUT_SECONDS + " s; see " + log);
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
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName(HOST))) {
            return s.getLocalPort();
        }
    }

    public int port() { return port; }

    public int ctrlPort() { return ctrlPort; }

    /** The {@code --tpm} argument for this TPM: {@code swtpm:127.0.0.1:PORT}. */
    public String target() { return "swtpm:" + HOST + ":" + port; }

    /** Stops swtpm; its state stays (swtpm writes NV state on every change). */
    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(5, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor();
        }
    }
}
