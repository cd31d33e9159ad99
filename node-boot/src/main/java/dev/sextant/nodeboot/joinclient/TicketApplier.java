package dev.sextant.nodeboot.joinclient;

import dev.sextant.nodeboot.diskcrypt.DiskCryptException;
import dev.sextant.nodeboot.diskcrypt.StateDisk;
import dev.sextant.nodeboot.diskcrypt.StateDiskSettings;
import dev.sextant.nodeboot.kubernetes.DriverResult;
import dev.sextant.nodeboot.kubernetes.JoinSettings;
import dev.sextant.nodeboot.kubernetes.KubernetesDriver;
import dev.sextant.proto.v1.ControlPlaneFile;
import dev.sextant.proto.v1.IssueJoinTicketResponse;
import dev.sextant.nodeboot.gossip.DiscoveryResume;
import jakarta.inject.Inject;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import jakarta.inject.Singleton;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * Applies a join ticket after the node lock: state disk key, kubelet credentials, control-plane
 * files, then Kubernetes, then endpoint discovery with the ticket's group key. Paths from the
 * ticket are confined to the PKI directory.
 */
@Singleton
public final class TicketApplier {
    private static final Logger LOG = LoggerFactory.getLogger(TicketApplier.class);

    private static final int GROUP_KEY_BYTES = 32;
    private final JoinClientSettings settings;
    private final StateDisk disk;
    private final StateDiskSettings diskSettings;
    private final KubernetesDriver kubernetes;
    private final DiscoveryResume discovery;

    /** Without endpoint discovery (the ticket's group key is not used). */
    public TicketApplier(JoinClientSettings settings, StateDisk disk, StateDiskSettings diskSettings,
                         KubernetesDriver kubernetes) {
        this(settings, disk, diskSettings, kubernetes, DiscoveryResume.disabled());
    }

    @Inject
    public TicketApplier(JoinClientSettings settings, StateDisk disk, StateDiskSettings diskSettings,
                         KubernetesDriver kubernetes, DiscoveryResume discovery) {
        this.settings = settings;
        this.disk = disk;
        this.diskSettings = diskSettings;
        this.kubernetes = kubernetes;
        this.discovery = discovery;
    }

    public DriverResult apply(IssueJoinTicketResponse ticket, String nodeName, KubeletCredentials kubelet)
            throws IOException, DiskCryptException, InterruptedException {
        if (Files.exists(diskSettings.device())) {
            byte[] key = ticket.getStateDiskKey().toByteArray();
            disk.rekey(disk.bootPassphrase(), key);
            LOG.info("State disk: {}", disk.openAndMount(key));
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
        DriverResult result = kubernetes.joinCluster(new JoinSettings(nodeName, server, ticket.getK3SToken(),
                settings.controlPlane()));
        // The discovery group key is what makes this node a publisher; a ticket without one (an older
        // join service) leaves discovery off.
        if (!(result instanceof DriverResult.Failed) && ticket.getDiscoveryKey().size() == GROUP_KEY_BYTES) {
            discovery.start(ticket.getDiscoveryKey().toByteArray(), nodeName, settings.controlPlane());
        }
        return result;
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
