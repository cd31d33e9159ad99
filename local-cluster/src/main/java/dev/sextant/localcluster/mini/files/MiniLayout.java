package dev.sextant.localcluster.mini.files;

import dev.sextant.localcluster.mini.node.NodeRole;
import java.nio.file.Path;

/**
 * Where a mini cluster keeps its files (default {@code out/mini}): the host-side identities it
 * keeps across clusters (EK CA, measurements signing key), the cluster's secrets, the image it
 * boots and its signed measurements, and one directory per node.
 */
public record MiniLayout(Path dir) {
    public static final String ENV = "SEXTANT_MINI_DIR";
    public static final Path DEFAULT = Path.of("out", "mini");

    public MiniLayout {
        dir = dir.toAbsolutePath().normalize();
    }

    /** {@code --dir} if given, else $SEXTANT_MINI_DIR, else out/mini under the working directory. */
    public static MiniLayout of(Path option) {
        if (option != null) {
            return new MiniLayout(option);
        }
        String env = System.getenv(ENV);
        return new MiniLayout(env == null || env.isBlank() ? DEFAULT : Path.of(env));
    }

    public Path stateFile() {
        return dir.resolve("mini.json");
    }

    /** The EK CA every node's TPM certificates chain to (ca-cert.pem, ca-key.pem). */
    public Path caDir() {
        return dir.resolve("ca");
    }

    public Path caCert() {
        return caDir().resolve("ca-cert.pem");
    }

    public Path caKey() {
        return caDir().resolve("ca-key.pem");
    }

    public Path measurementsKey() {
        return dir.resolve("keys").resolve("measurements-key.pem");
    }

    public Path measurementsPublicKey() {
        return dir.resolve("keys").resolve("measurements-pub.pem");
    }

    public Path masterSecret() {
        return dir.resolve("master-secret.json");
    }

    /** What {@code sextant init} recorded of the init node (its AK, its state disk), which {@code sextant recover} checks. */
    public Path clusterRecord() {
        return dir.resolve("cluster-record.json");
    }

    /** mini's own etcd client certificate, issued by the cluster's etcd CA (derived from the master secret). */
    public Path etcdClientDir() {
        return dir.resolve("etcd-client");
    }

    public Path initSecret() {
        return dir.resolve("init-secret");
    }

    /** A hard link to (or copy of) the image the nodes boot, so rebuilding out/image leaves them alone. */
    public Path image() {
        return dir.resolve("image.raw");
    }

    /** The image's predicted measurements, signed with the mini key (.sig beside it). */
    public Path measurements() {
        return dir.resolve("measurements.json");
    }

    /** The image's measurements with PCR 15 marked by this cluster's ID: what a bootstrapped node must show. */
    public Path clusterMeasurements() {
        return dir.resolve("cluster-measurements.json");
    }

    public Path kubeconfig() {
        return dir.resolve("kubeconfig");
    }

    public Path nodeDir(String node) {
        return dir.resolve(node);
    }

    /** The console of the node's current boot; earlier boots' are console.1.log, console.2.log, ... */
    public Path consoleLog(String node) {
        return nodeDir(node).resolve("console.log");
    }

    /** How the node was first booted (QEMU settings, ports, settings), so a reboot boots it the same way. */
    public Path launch(String node) {
        return nodeDir(node).resolve("launch.json");
    }

    /** The boot disk image a node booted before an upgrade replaced it, kept until the upgrade is through. */
    public Path previousBootDisk(String node) {
        return nodeDir(node).resolve("boot-disk.previous");
    }

    /** Where an upgrade keeps the images it rolls out, one hard link per image version. */
    public Path imageOfVersion(String version) {
        return dir.resolve("images").resolve(version + ".raw");
    }

    public Path stateDisk(String node) {
        return nodeDir(node).resolve("state-disk.raw");
    }

    /** A control plane's etcd data volume: a raw disk whose one GPT partition is named by its tag. */
    public Path etcdVolume(String node) {
        return nodeDir(node).resolve("etcd-volume.raw");
    }

    public Path tpmDir(String node) {
        return nodeDir(node).resolve("tpm");
    }

    public Path initJournal() {
        return nodeDir(NodeRole.CONTROL_PLANE.nodeName(0)).resolve("init-journal.log");
    }
}
