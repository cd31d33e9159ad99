package dev.sextant.joinapi;

import dev.sextant.attestation.testkit.ScratchDirs;
import dev.sextant.etcd.client.EtcdClient;
import dev.sextant.etcd.client.EtcdClientConfig;
import dev.sextant.etcd.client.EtcdException;
import dev.sextant.etcd.pki.EtcdTlsFiles;
import dev.sextant.etcd.process.EtcdMemberConfig;
import dev.sextant.etcd.process.EtcdProcess;
import dev.sextant.etcd.testkit.EtcdInstalled;
import dev.sextant.etcd.testkit.TestEtcdCluster;
import dev.sextant.joinapi.clusterstore.EtcdConnection;
import dev.sextant.joinapi.binding.InMemoryBindingStoreDouble;
import dev.sextant.joinapi.measurements.PublishedSetWatcher;
import dev.sextant.serviceconfig.JoinServiceConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The cluster store for join-service tests and the benchmark: real etcd members on 127.0.0.1 (one, or
 * three for quorum), data in /dev/shm, one seeded etcd CA, and the settings a join service reaches them
 * with. Fails (never skips) without /usr/bin/etcd. {@link #close()} stops every member it started (and a
 * shutdown hook kills any left if the JVM ends first). The members start together as one new cluster,
 * which TestEtcdCluster's one-at-a-time start cannot do; its certificates, ports and clients serve here.
 */
public final class TestClusterStore implements AutoCloseable {
    /** How long a join service of {@link #joinService} waits for each member's answer. */
    public static final Duration JOIN_SERVICE_DEADLINE = Duration.ofSeconds(2);

    private static final Path SHM = Path.of("/dev/shm");

    private final Path dir;
    private final TestEtcdCluster etcd;
    private final List<String> names = new ArrayList<>();
    private final EtcdClient admin;
    private final Map<String, EtcdProcess> running = new LinkedHashMap<>();
    private final List<EtcdConnection> connections = new ArrayList<>();
    private final Thread killer = new Thread(this::killAll, "join-test-etcd-killer");

    public TestClusterStore(int members) {
        this(members, randomSeed());
    }

    /** Members whose etcd CA is seeded with {@code caSeed}, as a control plane derives it from the master secret. */
    public TestClusterStore(int members, byte[] caSeed) {
        EtcdInstalled.require();
        try {
            dir = Files.isDirectory(SHM) && Files.isWritable(SHM)
                    ? Files.createTempDirectory(SHM, "sextant-join-etcd-") : Files.createTempDirectory("sextant-join-etcd-");
        } catch (IOException e) {
            throw new IllegalStateException("no directory for the join service's test etcd", e);
        }
        etcd = new TestEtcdCluster(dir, caSeed);
        Map<String, String> initial = new LinkedHashMap<>();
        for (int i = 0; i < members; i++) {
            names.add("etcd-" + i);
            initial.put("etcd-" + i, etcd.member("etcd-" + i).peerUrl());
        }
        Runtime.getRuntime().addShutdownHook(killer);
        try {
            // All members at once, as one new cluster: a member serves clients only once the cluster has
            // a quorum, so every process is started before any is waited for.
            for (String name : names) {
                TestEtcdCluster.Member m = etcd.member(name);
                launch(new EtcdMemberConfig(name, m.dataDir(), m.clientUrl(), m.peerUrl(), initial,
                        EtcdMemberConfig.ClusterState.NEW, TestEtcdCluster.TOKEN, m.tls(), m.tls()));
            }
            for (EtcdProcess p : running.values()) {
                p.awaitReady(TestEtcdCluster.START_TIMEOUT);
            }
            admin = etcd.client("test-admin", Duration.ofSeconds(2), names.toArray(String[]::new));
            awaitLeader();
        } catch (IOException | InterruptedException | RuntimeException e) {
            String logs = logs();
            try {
                close(); // a failed start leaves no process and no directory behind
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
            }
            throw new IllegalStateException("starting etcd for the join service's tests failed:\n" + logs, e);
        }
    }

    private static byte[] randomSeed() {
        byte[] seed = new byte[32];
        new SecureRandom().nextBytes(seed);
        return seed;
    }

    private void awaitLeader() throws InterruptedException {
        Instant deadline = Instant.now().plus(TestEtcdCluster.START_TIMEOUT);
        while (true) {
            try {
                admin.put("/sextant-test/ready", "1");
                return;
            } catch (EtcdException e) {
                if (Instant.now().isAfter(deadline)) {
                    throw new IllegalStateException("etcd has no leader after " + TestEtcdCluster.START_TIMEOUT + ":\n" + logs(), e);
                }
                Thread.sleep(100);
            }
        }
    }

    /** The members' certificates, ports and clients (their processes are this class's). */
    public TestEtcdCluster etcd() {
        return etcd;
    }

    private synchronized void launch(EtcdMemberConfig config) throws IOException {
        running.put(config.name(), EtcdProcess.start(EtcdProcess.DEFAULT_BINARY, config, dir.resolve(config.name()).resolve("etcd.log")));
    }

    /** Stops one member (SIGTERM: it hands leadership over if it has it). */
    public synchronized void stop(String name) throws InterruptedException {
        running.get(name).stop();
    }

    /** Kills one member (SIGKILL), as a control plane that loses power: no leadership hand-over. */
    public synchronized void kill(String name) throws InterruptedException {
        running.get(name).kill();
    }

    /** Starts a stopped member again with its data dir, and waits until it answers. */
    public void restart(String name) throws IOException, InterruptedException {
        EtcdProcess p;
        synchronized (this) {
            launch(running.get(name).config());
            p = running.get(name);
        }
        p.awaitReady(TestEtcdCluster.START_TIMEOUT);
    }

    /** Every member's log tail, for a failure message. */
    public synchronized String logs() {
        StringBuilder out = new StringBuilder();
        running.forEach((name, p) -> out.append("--- ").append(name).append(" (alive: ").append(p.isAlive()).append(")\n")
                .append(p.logTail(15)).append('\n'));
        return out.toString();
    }

    public List<String> memberNames() {
        return List.copyOf(names);
    }

    /** The members' client endpoints, host:port, as an EtcdClient takes them. */
    public List<String> endpoints() {
        return names.stream().map(n -> etcd.member(n).clientEndpoint()).toList();
    }

    /** A client holding a certificate of the etcd CA, to read what the join services wrote. */
    public EtcdClient admin() {
        return admin;
    }

    /**
     * A connection to every member as the join service makes it, with its own client certificate named
     * {@code clientName}, waiting {@link #JOIN_SERVICE_DEADLINE} per answer; closed with the store.
     */
    public synchronized EtcdConnection connection(String clientName) {
        EtcdConnection connection = new EtcdConnection(new EtcdClientConfig(endpoints(), etcd.clientTls(clientName),
                JOIN_SERVICE_DEADLINE));
        connections.add(connection);
        return connection;
    }

    /**
     * The settings of a join service that reaches every member with its own client certificate, and
     * waits at most {@code deadline} for each member's answer.
     */
    public Map<String, String> properties(String clientName, Duration deadline) {
        EtcdTlsFiles tls = etcd.clientTls(clientName);
        Map<String, String> p = new HashMap<>();
        p.put(JoinServiceConfig.ETCD_ENDPOINTS, names.stream().map(n -> etcd.member(n).clientUrl()).collect(Collectors.joining(",")));
        p.put(JoinServiceConfig.ETCD_CA_FILE, tls.caFile().toString());
        p.put(JoinServiceConfig.ETCD_CERT_FILE, tls.certFile().toString());
        p.put(JoinServiceConfig.ETCD_KEY_FILE, tls.keyFile().toString());
        p.put(JoinServiceConfig.ETCD_DEADLINE, deadline.toMillis() + "ms");
        return p;
    }

    /** {@link TestCluster#properties()} with the bindings in these members instead of the in-memory double. */
    public Map<String, String> joinService(TestCluster cluster, String clientName) {
        Map<String, String> p = cluster.properties();
        p.remove(InMemoryBindingStoreDouble.PROPERTY);
        p.remove(PublishedSetWatcher.ENABLED);
        p.putAll(properties(clientName, JOIN_SERVICE_DEADLINE));
        return p;
    }

    @Override
    public void close() throws InterruptedException {
        synchronized (this) {
            connections.forEach(EtcdConnection::close);
        }
        etcd.close();
        List<EtcdProcess> processes;
        synchronized (this) {
            processes = List.copyOf(running.values());
        }
        for (EtcdProcess p : processes) {
            p.stop();
        }
        try {
            Runtime.getRuntime().removeShutdownHook(killer);
        } catch (IllegalStateException shuttingDown) {
            // the hook runs anyway
        }
        ScratchDirs.delete(dir);
    }

    private void killAll() {
        running.values().forEach(p -> {
            try {
                p.kill();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
    }
}
