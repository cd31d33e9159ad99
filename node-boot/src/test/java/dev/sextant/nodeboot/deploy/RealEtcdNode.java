package dev.sextant.nodeboot.deploy;

import dev.sextant.etcd.process.EtcdMemberConfig;
import dev.sextant.etcd.client.EtcdClient;
import dev.sextant.etcd.client.EtcdClientConfig;
import dev.sextant.etcd.pki.EtcdTlsFiles;
import dev.sextant.etcd.testkit.EtcdInstalled;
import dev.sextant.etcd.testkit.LoopbackPorts;
import dev.sextant.serviceconfig.JoinServiceConfig;
import java.io.IOException;
import java.io.Reader;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Properties;

/**
 * A control plane's node-local services with a real etcd: the deployer under test writes its files, and
 * {@link EtcdUnitAsProcess} runs the image's sextant-etcd.service from them as a child process, on free
 * loopback ports (bound on every address, as on a node). The KMS and the join service are listening
 * sockets. The member's DNS name resolves nowhere here (the hosts file is the test's own): etcd 3.4 starts
 * a one-member cluster, and restarts it, without resolving its advertised URLs.
 */
public final class RealEtcdNode implements AutoCloseable {
    public static final String CLUSTER = "test";
    private static final LoopbackPorts PORTS = new LoopbackPorts();

    public final Path dir;
    public final EtcdUnitAsProcess systemd;
    public final NodeLocalSettings settings;
    public final NodeLocalServices services;
    private final KmsSocketStandIn kms;
    private final ServerSocket join;

    public RealEtcdNode(Path dir) throws IOException {
        this(dir, "");
    }

    /** @param advertiseHost the host its member advertises ("" = its DNS name, which resolves nowhere here) */
    public RealEtcdNode(Path dir, String advertiseHost) throws IOException {
        EtcdInstalled.require();
        this.dir = dir;
        this.kms = new KmsSocketStandIn(dir.resolve("run/kms/kms.sock"));
        this.join = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        this.systemd = new EtcdUnitAsProcess(dir.resolve("services"), dir.resolve("etcd.log"));
        this.settings = new NodeLocalSettings(dir.resolve("services"), kms.socket(), join.getLocalPort(), "",
                Duration.ofSeconds(30), PORTS.next(), PORTS.next(), advertiseHost, 0, 0, CLUSTER, dir.resolve("hosts"), EtcdMemberConfig.DEFAULT_HEARTBEAT);
        this.services = new NodeLocalServices(settings, systemd, new EtcdStatusProbe());
    }

    /** What the node's member {@code nodeName} advertises: what its join request names. */
    public EtcdAdvertisedUrls advertised(String nodeName) {
        return EtcdAdvertisedUrls.of(settings, nodeName, CLUSTER);
    }

    /** The join service's settings as init wrote them. */
    public JoinServiceConfig joinConfig() throws IOException {
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(dir.resolve("services/join.properties"))) {
            p.load(r);
        }
        return JoinServiceConfig.from(p);
    }

    /** A client the way the join service connects: its endpoints, with the given certificate. */
    public EtcdClient client(EtcdTlsFiles tls) throws IOException {
        JoinServiceConfig.Etcd etcd = joinConfig().etcd();
        return new EtcdClient(new EtcdClientConfig(etcd.endpoints().stream().map(u -> u.substring("https://".length())).toList(),
                tls, Duration.ofSeconds(3)));
    }

    /** The join service's own client. */
    public EtcdClient joinServiceClient() throws IOException {
        JoinServiceConfig.Etcd etcd = joinConfig().etcd();
        return client(new EtcdTlsFiles(etcd.caFile(), etcd.certFile(), etcd.keyFile()));
    }

    @Override
    public void close() throws IOException, InterruptedException {
        systemd.close();
        kms.close();
        join.close();
    }
}
