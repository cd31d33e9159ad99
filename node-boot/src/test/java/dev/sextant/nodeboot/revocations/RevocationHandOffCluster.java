package dev.sextant.nodeboot.revocations;

import dev.sextant.etcd.process.EtcdMemberConfig;
import dev.sextant.attestation.testkit.FreePorts;
import dev.sextant.etcd.client.EtcdClient;
import dev.sextant.etcd.pki.EtcdCa;
import dev.sextant.etcd.pki.EtcdTlsFiles;
import dev.sextant.etcd.testkit.TestEtcdCluster;
import dev.sextant.housekeeping.discovery.EndpointDiscovery;
import dev.sextant.housekeeping.discovery.GossipSettings;
import dev.sextant.housekeeping.discovery.GroupIntruder;
import dev.sextant.housekeeping.discovery.TestMembers;
import dev.sextant.keys.member.MemberCredentials;
import dev.sextant.nodeboot.deploy.NodeLocalSettings;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BooleanSupplier;

/**
 * A control plane's side of the hand-off, every part real: the cluster's etcd (one member on loopback), the
 * services directory of control plane cp-0 with the join service's etcd client certificate where the
 * bootstrapper issues it ({@code etcd/pki/join-service}), cp-0's discovery and a worker's (each an
 * {@code EndpointDiscovery} writing its hosts file, on the sealed JGroups stack over loopback), cp-0's
 * {@link RevocationListHandOff} from its etcd member to its discovery (polling at the given interval), and a
 * member gone bad, w-bad (it keeps the group key and its certificate and sends what it likes). The lists
 * are the cluster's discovery CA's own ({@link TestMembers}), written to {@code revocations/list} as the
 * join service writes them: base64 of the signed bytes.
 */
public final class RevocationHandOffCluster implements AutoCloseable {
    public static final String DOMAIN = "internal.demo";
    public static final String CP_IP = "127.0.0.41";
    public static final String WORKER_IP = "127.0.0.42";
    public static final String BAD_IP = "127.0.0.43";

    public final TestMembers cluster = TestMembers.random();
    public final byte[] groupKey = new byte[32];
    public final MemberCredentials controlPlaneCredentials = cluster.controlPlane("cp-0");
    public final MemberCredentials badCredentials = cluster.worker("w-bad");
    public final TestEtcdCluster etcd;
    public final EtcdClient admin;
    public final NodeLocalSettings settings;
    public final Path controlPlaneHosts;
    public final Path workerHosts;
    public final EndpointDiscovery controlPlane;
    public final EndpointDiscovery worker;
    public final GroupIntruder bad;
    public final RevocationListHandOff handOff;
    private final List<String> seeds;

    public RevocationHandOffCluster(Path dir, Duration poll) throws Exception {
        new SecureRandom().nextBytes(groupKey);
        byte[] caSeed = new byte[32];
        new SecureRandom().nextBytes(caSeed);
        etcd = new TestEtcdCluster(dir.resolve("etcd"), caSeed);
        etcd.startFirst("cp-0");
        admin = etcd.client("test-admin", Duration.ofSeconds(2), "cp-0");
        Path services = Files.createDirectories(dir.resolve("services"));
        // Where ControlPlaneEtcd.prepare puts the join service's client certificate on a control plane.
        EtcdTlsFiles.write(services.resolve("etcd").resolve("pki").resolve("join-service"), "join-service", etcd.ca().certificate(),
                etcd.ca().issueClient("join-service", Instant.now(), EtcdCa.DEFAULT_VALIDITY));
        settings = new NodeLocalSettings(services, dir.resolve("kms.sock"), 9090, "", Duration.ofSeconds(5),
                etcd.member("cp-0").clientPort(), 2380, "", 0, 0, "demo", dir.resolve("etcd-hosts"), EtcdMemberConfig.DEFAULT_HEARTBEAT);

        int cpPort = FreePorts.on(InetAddress.getByName(CP_IP));
        int workerPort = FreePorts.on(InetAddress.getByName(WORKER_IP));
        seeds = List.of(CP_IP + ":" + cpPort, WORKER_IP + ":" + workerPort);
        controlPlaneHosts = hostsFile(dir, "cp-0");
        workerHosts = hostsFile(dir, "w-0");
        controlPlane = new EndpointDiscovery(settings(CP_IP, cpPort, controlPlaneHosts));
        worker = new EndpointDiscovery(settings(WORKER_IP, workerPort, workerHosts));
        controlPlane.start(groupKey, "cp-0", true, controlPlaneCredentials);
        worker.start(groupKey, "w-0", false, cluster.worker("w-0"));
        InetAddress badIp = InetAddress.getByName(BAD_IP);
        bad = new GroupIntruder("w-bad", badIp, FreePorts.on(badIp), List.of(new InetSocketAddress(CP_IP, cpPort),
                new InetSocketAddress(WORKER_IP, workerPort)), groupKey, DOMAIN);
        if (!await(Duration.ofSeconds(30), () -> hostsNames(workerHosts).contains("api." + DOMAIN))) {
            throw new IllegalStateException("the group did not form: " + hostsNames(workerHosts));
        }
        handOff = new RevocationListHandOff(settings, controlPlane, poll);
    }

    private GossipSettings settings(String ip, int port, Path hosts) {
        return new GossipSettings(true, "demo", ip, port, seeds, hosts.toString(), Duration.ofSeconds(4), Duration.ofSeconds(30),
                6443, 0, 2379);
    }

    private static Path hostsFile(Path dir, String name) throws IOException {
        return Files.writeString(dir.resolve(name + ".hosts"), "127.0.0.1 localhost\n");
    }

    /** Writes {@code signed} to {@code revocations/list} as the join service does. */
    public void store(byte[] signed) {
        admin.put(ControlPlaneRevocationList.KEY, Base64.getEncoder().encodeToString(signed));
    }

    /** The names in {@code hosts}' managed block (its lines alone hold a tab). */
    public static Set<String> hostsNames(Path hosts) {
        try {
            Set<String> names = new TreeSet<>();
            for (String line : Files.readAllLines(hosts)) {
                if (!line.startsWith("#") && line.contains("\t")) { // the managed block's lines: "address<TAB>name name"
                    names.addAll(Arrays.asList(line.split("\t")[1].split(" ")));
                }
            }
            return names;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static boolean await(Duration timeout, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline && !condition.getAsBoolean()) {
            Thread.sleep(20);
        }
        return condition.getAsBoolean();
    }

    @Override
    public void close() throws Exception {
        if (handOff != null) {
            handOff.stop();
        }
        for (AutoCloseable c : new AutoCloseable[] {bad, worker, controlPlane, etcd}) {
            try {
                if (c != null) {
                    c.close();
                }
            } catch (Exception ignored) {
                // closing the rest matters more
            }
        }
    }
}
