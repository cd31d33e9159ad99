package dev.sextant.nodeboot.joinclient;

import dev.sextant.nodeboot.diskcrypt.DiskCryptException;
import dev.sextant.nodeboot.diskcrypt.StateDisk;
import dev.sextant.nodeboot.diskcrypt.StateDiskSettings;
import dev.sextant.nodeboot.kubernetes.DriverResult;
import dev.sextant.nodeboot.kubernetes.JoinSettings;
import dev.sextant.nodeboot.kubernetes.KubernetesDriver;
import dev.sextant.proto.v1.ControlPlaneFile;
import dev.sextant.proto.v1.IssueJoinTicketResponse;
import jakarta.inject.Singleton;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * Applies a join ticket after the node lock: state disk key, kubelet credentials, control-plane
 * files, then Kubernetes. Paths from the ticket are confined to the PKI directory.
 */
@Singleton
public final class TicketApplier {
    private final JoinClientSettings settings;
    private final StateDisk disk;
    private final StateDiskSettings diskSettings;
    private final KubernetesDriver kubernetes;

    public TicketApplier(JoinClientSettings settings, StateDisk disk, StateDiskSettings diskSettings,
                         KubernetesDriver kubernetes) {
        this.settings = settings;
        this.disk = disk;
        this.diskSettings = diskSettings;
        this.kubernetes = kubernetes;
    }

    public DriverResult apply(IssueJoinTicketResponse ticket, String nodeName, KubeletCredentials kubelet)
            throws IOException, DiskCryptException, InterruptedException {
        if (Files.exists(diskSettings.device())) {
            disk.rekey(disk.bootPassphrase(), ticket.getStateDiskKey().toByteArray());
        }
        Path kubeletDir = settings.kubeletPkiDir();
        Files.createDirectories(kubeletDir);
        Files.write(kubeletDir.resolve("kubelet-client-crt.pem"), ticket.getKubeletCertificate().toByteArray());
        writePrivate(kubeletDir.resolve("kubelet-client-key.pem"), kubelet.privateKeyPem().getBytes());
        if (settings.controlPlane()) {
            for (ControlPlaneFile file : ticket.getControlPlaneFilesList()) {
                writePrivate(confined(settings.kubernetesPkiDir(), file.getName()), file.getData().toByteArray());
            }
        }
        String server = ticket.getApiServerEndpoint().startsWith("https://") ? ticket.getApiServerEndpoint()
                : "https://" + ticket.getApiServerEndpoint();
        return kubernetes.joinCluster(new JoinSettings(nodeName, server, ticket.getK3SToken(), settings.controlPlane()));
    }

    /** The ticket names files relative to the PKI directory; "../" or absolute names are refused. */
    static Path confined(Path root, String name) throws IOException {
        Path base = root.toAbsolutePath().normalize();
        Path target = base.resolve(name).normalize();
        if (name.isEmpty() || Path.of(name).isAbsolute() || !target.startsWith(base) || target.equals(base)) {
            throw new IOException("control-plane file name '" + name + "' leaves " + base);
        }
        return target;
    }

    private static void writePrivate(Path file, byte[] data) throws IOException {
        Files.createDirectories(file.getParent());
        Files.deleteIfExists(file);
        Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        Files.write(file, data);
    }
}
