package dev.sextant.e2e.cluster;

import dev.sextant.attestation.testkit.ScratchDirs;
import dev.sextant.etcd.testkit.LoopbackPorts;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One node as a set of processes on 127.0.0.1: its own swtpm (EK certificate from the shared local
 * CA, AK provisioned), its own state directory with a LUKS2 image file when cryptsetup exists, a
 * stand-in k3s that records its argv, an init-secret hash, and the bootstrapper JVM.
 */
final class ClusterNode {
    static final Duration CLI_TIMEOUT = Duration.ofSeconds(60);
    final String name;
    final Path dir;
    final int tpmPort;
    final int ctrlPort;
    final int grpcPort;
    final int recoveryPort;
    /** The node's own etcd member (init in Kubernetes mode starts it before k3s), on ports of its own. */
    private final int etcdClientPort;
    private final int etcdPeerPort;
    final boolean withDisk;
    private Process tpm;
    private Process bootstrapper;
    /** Which boot of this node runs: each boot has its own bootstrapper log, as a console is kept per boot. */
    private int boot = 1;
    private final Procs procs;
    private final Repo repo;

    /**
     * Its ports are picked now and bound phases later, so they come from the test's one {@code ports}:
     * two picks on their own may return the same free port, and the later process then cannot bind it.
     */
    ClusterNode(String name, Path clusterDir, Procs procs, Repo repo, LoopbackPorts ports, boolean withDisk) throws IOException {
        this.name = name;
        this.tpmPort = ports.pair();
        this.ctrlPort = tpmPort + 1;
        this.grpcPort = ports.next();
        this.recoveryPort = ports.next();
        this.etcdClientPort = ports.next();
        this.etcdPeerPort = ports.next();
        this.dir = Files.createDirectories(clusterDir.resolve(name));
        this.procs = procs;
        this.repo = repo;
        this.withDisk = withDisk;
    }

    /** Factory step: swtpm state whose EK certificate the CA in {@code ca} signed. */
    void manufacture(Path ca) throws InterruptedException {
        procs.ok(name + "-manufacture", CLI_TIMEOUT,
                repo.sextant("tpm", "manufacture", "--ca", ca.toString(), "--dir", dir.resolve("tpm").toString()));
    }

    void startTpm() throws InterruptedException {
        tpm = procs.start(name + "-swtpm" + (boot > 1 ? "-boot" + boot : ""), List.of("swtpm", "socket", "--tpm2", "--tpmstate", "dir=" + dir.resolve("tpm/state"),
                "--server", "type=tcp,port=" + tpmPort + ",bindaddr=127.0.0.1",
                "--ctrl", "type=tcp,port=" + ctrlPort + ",bindaddr=127.0.0.1",
                "--flags", "not-need-init,startup-clear"), Map.of());
        // Probe the control port: swtpm serves one data connection at a time, keep it for the node.
        Waits.port(Duration.ofSeconds(15), name + "'s swtpm control port", procs.log(name + "-swtpm"), ctrlPort);
    }

    /**
     * Power off and on: the bootstrapper and the TPM stop (PCRs reset when swtpm starts again from its
     * state), what lived in /run (the boot key file, header copies) is gone, the state disk stays.
     */
    void powerCycle() throws InterruptedException, IOException {
        stopEtcd();
        for (Process p : new Process[] {bootstrapper, tpm}) {
            p.descendants().forEach(ProcessHandle::destroy);
            p.destroy();
            if (!p.waitFor(10, java.util.concurrent.TimeUnit.SECONDS)) {
                p.destroyForcibly().waitFor(5, java.util.concurrent.TimeUnit.SECONDS);
            }
        }
        for (Path tmpfs : List.of(dir.resolve("keys"), dir.resolve("luks"))) {
            ScratchDirs.delete(tmpfs);
        }
        boot++;
        startTpm();
    }

    /** Derives the AK and stores its certificate, issued by the EK's CA. */
    void provision(Path ca) throws InterruptedException {
        procs.ok(name + "-provision", CLI_TIMEOUT,
                repo.sextant("tpm", "provision", "--tpm", tpmAddress(), "--ca", ca.toString()));
    }

    /** Extends {@code pcr} through the test's own TPM connection, released when tpm2_pcrextend exits. */
    void extendPcr(int pcr, byte[] digest) throws InterruptedException {
        procs.ok(name + "-pcrextend", Duration.ofSeconds(20), List.of("tpm2_pcrextend",
                "-T", "swtpm:host=127.0.0.1,port=" + tpmPort, pcr + ":sha256=" + HexFormat.of().formatHex(digest)));
    }

    String tpmAddress() {
        return "swtpm:127.0.0.1:" + tpmPort;
    }

    String endpoint() {
        return "127.0.0.1:" + grpcPort;
    }

    Path log() {
        return procs.log(name + "-bootstrapper" + (boot > 1 ? "-boot" + boot : ""));
    }

    Path k3sRecord() {
        return dir.resolve("k3s/argv.log");
    }

    Path initSecret() {
        return dir.resolve("init-secret");
    }

    Path stateDisk() {
        return dir.resolve("state.img");
    }

    /**
     * Starts the bootstrapper; its stand-in k3s "server" hands over {@code kubeconfig} (naming the
     * Kubernetes API double, where init applies the cluster services). With {@code joinEndpoint} set
     * it runs the join path too, verifying the join service's AK against {@code ekCa}.
     */
    void startBootstrapper(String joinEndpoint, String kubeconfig, Path ekCa) throws IOException, InterruptedException {
        if (boot == 1) {
            writeFirstBoot(kubeconfig);
        }
        Map<String, String> env = new HashMap<>(Map.of("SEXTANT_TPM", tpmAddress(),
                "SEXTANT_GRPC_PORT", Integer.toString(grpcPort), "SEXTANT_RECOVERY_PORT", Integer.toString(recoveryPort),
                "SEXTANT_LOG_FILE", dir.resolve("node-boot.log").toString(),
                "SEXTANT_INIT_SECRET_HASH", dir.resolve("init-secret.hash").toString(),
                "SEXTANT_STATE_DISK", stateDisk().toString(), "SEXTANT_K3S", dir.resolve("k3s/k3s").toString(),
                "SEXTANT_REBOOT_DELAY", "disabled",
                // No systemd here to start the bootstrapper again in verify-only mode after it exits
                // (the QEMU boots of `sextant mini` show that path): the processes stay up.
                "SEXTANT_EXIT_AFTER_BOOTSTRAP", "false"));
        if (joinEndpoint != null) {
            env.put("SEXTANT_JOIN_ENDPOINTS", joinEndpoint);
        }
        env.put("PATH", dir.resolve("bin") + ":" + System.getenv("PATH"));
        List<String> props = new ArrayList<>(List.of("-Dsextant.state-disk.key-file=" + dir.resolve("keys/state.key"),
                "-Dsextant.state-disk.work-dir=" + dir.resolve("luks"),
                "-Dsextant.state-disk.pbkdf-memory-kib=8192", "-Dsextant.state-disk.pbkdf-iterations=4",
                "-Dsextant.k3s.config-file=" + dir.resolve("k3s/config.yaml"),
                "-Dsextant.k3s.kubeconfig=" + dir.resolve("k3s/k3s.yaml"), "-Dsextant.k3s.join-settle=1s",
                // What the node keeps on its state disk (node state, node-local services) goes here instead.
                "-Dsextant.state-disk.mount.mount-point=" + dir.resolve("state"),
                "-Dsextant.services.dir=" + dir.resolve("state/sextant/services"),
                "-Dsextant.services.etcd-client-port=" + etcdClientPort, "-Dsextant.services.etcd-peer-port=" + etcdPeerPort,
                "-Dsextant.init.use-journalctl=false", "-Dsextant.init.node-name=" + name,
                "-Dsextant.node.join-service.ek-ca-file=" + ekCa,
                // Init applies the cluster services to the API double only; their images are taken by digest.
                "-Dsextant.services.kubernetes.join-image=sextant/join-service@sha256:" + "a".repeat(64),
                "-Dsextant.services.kubernetes.kms-image=sextant/kms@sha256:" + "b".repeat(64),
                // Opening the LUKS disk needs device-mapper, which this host lacks: re-key only here (the
                // QEMU boots of MiniClusterTest open and mount it).
                "-Dsextant.state-disk.mount.enabled=" + Files.isDirectory(Path.of("/sys/module/dm_crypt"))));
        bootstrapper = procs.start(log().getFileName().toString().replace(".log", ""),
                repo.service("node-boot", "dev.sextant.nodeboot.Application", props), env);
        Waits.logMatches(Duration.ofSeconds(45), name + "'s bootstrapper to serve gRPC", log(), "Serving gRPC");
    }

    /** What the node is given once, before its first boot: init secret, stand-ins for k3s and systemctl, a blank state disk. */
    private void writeFirstBoot(String kubeconfig) throws IOException {
        writeInitSecret();
        writeStandInK3s(kubeconfig);
        writeStandInSystemctl();
        if (withDisk) {
            try (RandomAccessFile blank = new RandomAccessFile(stateDisk().toFile(), "rw")) {
                blank.setLength(32L << 20);
            }
        }
    }

    /** The LUKS2 UUID of the state disk, which the join service binds to the node's AK. */
    String diskUuid() throws InterruptedException {
        return procs.ok(name + "-luksuuid", Duration.ofSeconds(20),
                List.of("cryptsetup", "luksUUID", stateDisk().toString())).strip();
    }

    /** The init secret, and its salted hash as the image hands it to the node (InitSecretHash format). */
    private void writeInitSecret() throws IOException {
        SecureRandom random = new SecureRandom();
        byte[] secret = new byte[32];
        byte[] salt = new byte[16];
        random.nextBytes(secret);
        random.nextBytes(salt);
        String secretText = HexFormat.of().formatHex(secret);
        Files.writeString(initSecret(), secretText + "\n");
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            sha.update(salt);
            byte[] digest = sha.digest(secretText.getBytes(StandardCharsets.UTF_8));
            Files.writeString(dir.resolve("init-secret.hash"),
                    "sha256:" + HexFormat.of().formatHex(salt) + ":" + HexFormat.of().formatHex(digest) + "\n");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * systemctl stand-in (no systemd on this host): {@code start sextant-etcd.service} runs what the image's
     * unit runs, /usr/bin/etcd with the arguments the bootstrapper wrote to etcd.env, in the background, its
     * PID kept so a power cycle stops it; any other unit or verb succeeds doing nothing.
     */
    private void writeStandInSystemctl() throws IOException {
        Path systemctl = Files.createDirectories(dir.resolve("bin")).resolve("systemctl");
        Files.writeString(systemctl, String.join("\n", "#!/bin/sh",
                "[ \"$1\" = start ] || exit 0",
                "shift",
                "for unit in \"$@\"; do",
                "  [ \"$unit\" = sextant-etcd.service ] || continue",
                "  [ -f '" + etcdPid() + "' ] && kill \"$(cat '" + etcdPid() + "')\" 2>/dev/null && sleep 1",
                // systemd's EnvironmentFile syntax (an unquoted value with spaces), which sh cannot source
                "  args=$(sed -n 's/^SEXTANT_ETCD_ARGS=//p' '" + dir.resolve("state/sextant/services/etcd.env") + "')",
                "  setsid /usr/bin/etcd $args >> '" + dir.resolve("etcd.log") + "' 2>&1 < /dev/null &",
                "  echo $! > '" + etcdPid() + "'",
                "done", ""));
        Files.setPosixFilePermissions(systemctl, PosixFilePermissions.fromString("rwx------"));
    }

    private Path etcdPid() {
        return dir.resolve("etcd.pid");
    }

    /** Stops the etcd member the stand-in systemctl started, if any: it is no child of the bootstrapper. */
    void stopEtcd() throws IOException, InterruptedException {
        if (!Files.exists(etcdPid())) {
            return;
        }
        Optional<ProcessHandle> etcd = ProcessHandle.of(Long.parseLong(Files.readString(etcdPid()).strip()));
        if (etcd.isPresent()) {
            etcd.get().destroy();
            try {
                etcd.get().onExit().get(10, java.util.concurrent.TimeUnit.SECONDS);
            } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                etcd.get().destroyForcibly();
            }
        }
        Files.delete(etcdPid());
    }

    /** k3s stand-in: records its argv and writes the given kubeconfig, as k3s "server" writes its own. */
    private void writeStandInK3s(String kubeconfig) throws IOException {
        Path k3s = Files.createDirectories(dir.resolve("k3s")).resolve("k3s");
        Path written = Files.writeString(dir.resolve("k3s/kubeconfig-to-write"), kubeconfig);
        Files.writeString(k3s, "#!/bin/sh\nprintf '%s\\n' \"$*\" >> '" + k3sRecord() + "'\n"
                + "cp '" + written + "' '" + dir.resolve("k3s/k3s.yaml") + "'\n");
        Files.setPosixFilePermissions(k3s, PosixFilePermissions.fromString("rwx------"));
    }
}
