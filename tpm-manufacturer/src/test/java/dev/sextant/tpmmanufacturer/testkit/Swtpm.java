package dev.sextant.tpmmanufacturer.testkit;

import dev.sextant.tpm.command.AkTemplate;
import dev.sextant.tpm.command.TpmClient;
import dev.sextant.tpmmanufacturer.provision.AkProvisioner;
import dev.sextant.tpmmanufacturer.swtpm.LocalCa;
import dev.sextant.tpmmanufacturer.swtpm.SwtpmManufacturer;
import dev.sextant.tpmmanufacturer.swtpm.SwtpmServer;
import dev.sextant.tpmmanufacturer.provision.ProvisioningException;
import dev.sextant.tpm.transport.SwtpmSocketTransport;
import org.junit.jupiter.api.Assumptions;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * A real swtpm for tests: manufactured by swtpm_setup with an RSA EK whose certificate (NV
 * 0x01C00002) is signed by a fresh {@link LocalCa}, then served on free loopback ports. swtpm
 * serves one connection at a time, so share one {@link TpmClient} per Swtpm ({@link #client()}).
 * Closing kills the process and deletes the state.
 */
public final class Swtpm implements AutoCloseable {
    private static final String HOST = SwtpmServer.HOST;

    private final Path dir;
    private final LocalCa ca;
    private SwtpmServer server;
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
        return provisioned(AkTemplate.ECC_P256);
    }

    /** As {@link #provisioned()}, with an AK of {@code template} (RSA_2048: a TPM provisioned before ECC). */
    public static Swtpm provisioned(AkTemplate template) throws Exception {
        Swtpm tpm = start();
        try {
            new AkProvisioner(tpm.client(), tpm.ca.certificate(), tpm.ca.key()).provision(template);
            return tpm;
        } catch (ProvisioningException | IOException e) {
            tpm.close();
            throw e;
        }
    }

    private void launch() throws IOException, InterruptedException {
        server = SwtpmServer.start(dir.resolve("state"), dir.resolve("swtpm.log"));
    }

    /** Stops swtpm (keeping its state) and starts it again on new ports: a "reboot" of the TPM. */
    public void restart() throws IOException, InterruptedException {
        stop();
        launch();
    }

    /** The shared client of this swtpm, opened on first use and closed by {@link #restart()}/{@link #close()}. */
    public synchronized TpmClient client() throws IOException {
        if (client == null) {
            client = new TpmClient(new SwtpmSocketTransport(HOST, server.port()));
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

    public int port() { return server.port(); }

    public int ctrlPort() { return server.ctrlPort(); }

    /** The CLI's {@code --tpm} argument for this TPM. */
    public String tpmArg() { return server.target(); }

    public LocalCa ca() { return ca; }

    public Path dir() { return dir; }

    private synchronized void stop() throws IOException, InterruptedException {
        if (client != null) {
            client.close();
            client = null;
        }
        if (server != null) {
            server.close();
            server = null;
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
