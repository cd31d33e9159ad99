package dev.sextant.etcd.testkit;

import dev.sextant.etcd.client.EtcdClient;
import dev.sextant.etcd.client.EtcdClientConfig;
import dev.sextant.etcd.pki.EtcdCa;
import dev.sextant.etcd.pki.EtcdTlsFiles;
import dev.sextant.etcd.process.EtcdMemberConfig;
import dev.sextant.etcd.process.EtcdProcess;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Real etcd members on 127.0.0.1, each with its own ports, data dir, certificate and log under one
 * directory, all certified by one seeded etcd CA; {@link #close()} stops every process it started, also
 * when a test failed half-way (and a shutdown hook kills any that are left if the JVM ends first).
 */
public final class TestEtcdCluster implements AutoCloseable {
    public static final Duration START_TIMEOUT = Duration.ofSeconds(20);
    public static final String TOKEN = "sextant-test";

    /** One member's fixed place: its name, ports, files. */
    public record Member(String name, int clientPort, int peerPort, Path dir, EtcdTlsFiles tls) {
        public String clientEndpoint() {
            return "127.0.0.1:" + clientPort;
        }

        public String clientUrl() {
            return "https://" + clientEndpoint();
        }

        public String peerUrl() {
            return "https://127.0.0.1:" + peerPort;
        }

        public Path dataDir() {
            return dir.resolve("data");
        }
    }

    private final Path dir;
    private final EtcdCa ca;
    private final LoopbackPorts ports;
    private final Map<String, Member> members = new LinkedHashMap<>();
    private final Map<String, EtcdProcess> running = new LinkedHashMap<>();
    private final List<EtcdClient> clients = new ArrayList<>();
    private final Thread killer = new Thread(this::killAll, "etcd-test-cluster-killer");

    public TestEtcdCluster(Path dir, byte[] caSeed) {
        this(dir, caSeed, new LoopbackPorts());
    }

    /** Members take their ports from {@code ports}, which the caller's other processes share so none is handed out twice. */
    public TestEtcdCluster(Path dir, byte[] caSeed, LoopbackPorts ports) {
        this.dir = dir;
        this.ports = ports;
        this.ca = new EtcdCa(caSeed, new SecureRandom());
        Runtime.getRuntime().addShutdownHook(killer);
    }

    public EtcdCa ca() {
        return ca;
    }

    public synchronized Member member(String name) {
        return members.computeIfAbsent(name, n -> {
            Path memberDir = dir.resolve(n);
            EtcdTlsFiles tls = EtcdTlsFiles.write(memberDir.resolve("tls"), n, ca.certificate(),
                    ca.issueMember(n, List.of("etcd-" + n + ".internal.test"), List.of(InetAddress.getLoopbackAddress()),
                            Instant.now(), EtcdCa.DEFAULT_VALIDITY));
            return new Member(n, ports.next(), ports.next(), memberDir, tls);
        });
    }

    /** The first member of a new cluster, started and answering. */
    public EtcdProcess startFirst(String name) throws IOException, InterruptedException {
        Member m = member(name);
        return start(EtcdMemberConfig.first(name, m.dataDir(), m.clientUrl(), m.peerUrl(), TOKEN, m.tls()));
    }

    /**
     * A new cluster of these members, all started at once (each listed in the others' initial cluster, no
     * learners: faster than growing one by one), returned once every member answers and one leads.
     */
    public synchronized void startAll(String... names) throws IOException, InterruptedException {
        Map<String, String> initial = new LinkedHashMap<>();
        for (String name : names) {
            initial.put(name, member(name).peerUrl());
        }
        // All processes first: a member of a new cluster serves clients only once a quorum has formed.
        List<EtcdProcess> started = new ArrayList<>();
        for (String name : names) {
            Member m = member(name);
            EtcdMemberConfig config = new EtcdMemberConfig(name, m.dataDir(), m.clientUrl(), m.peerUrl(), initial,
                    EtcdMemberConfig.ClusterState.NEW, TOKEN, m.tls(), m.tls());
            EtcdProcess process = EtcdProcess.start(EtcdProcess.DEFAULT_BINARY, config, dir.resolve(name).resolve("etcd.log"));
            running.put(name, process);
            started.add(process);
        }
        boolean led = false;
        for (EtcdProcess process : started) {
            led |= process.awaitReady(START_TIMEOUT).leaderId() != 0;
        }
        Instant deadline = Instant.now().plus(START_TIMEOUT);
        while (!led) {
            if (Instant.now().isAfter(deadline)) {
                throw new IOException("no leader elected among " + List.of(names) + " within " + START_TIMEOUT + ":\n" + logs());
            }
            Thread.sleep(50);
            led = started.get(0).awaitReady(START_TIMEOUT).leaderId() != 0;
        }
    }

    /** A member joining the running cluster (added already), started and answering. */
    public EtcdProcess startJoining(String name, Map<String, String> initialCluster) throws IOException, InterruptedException {
        Member m = member(name);
        return start(EtcdMemberConfig.joining(name, m.dataDir(), m.clientUrl(), m.peerUrl(), initialCluster, TOKEN, m.tls()));
    }

    /** Starts {@code config} and waits until it answers. */
    public synchronized EtcdProcess start(EtcdMemberConfig config) throws IOException, InterruptedException {
        EtcdProcess process = EtcdProcess.start(EtcdProcess.DEFAULT_BINARY, config, dir.resolve(config.name()).resolve("etcd.log"));
        running.put(config.name(), process);
        process.awaitReady(START_TIMEOUT);
        return process;
    }

    public synchronized EtcdProcess process(String name) {
        return running.get(name);
    }

    /** A client certificate of this cluster's CA, written under the cluster's directory. */
    public EtcdTlsFiles clientTls(String clientName) {
        return EtcdTlsFiles.write(dir.resolve("clients").resolve(clientName), clientName, ca.certificate(),
                ca.issueClient(clientName, Instant.now(), EtcdCa.DEFAULT_VALIDITY));
    }

    /** A client to these members' endpoints, closed with the cluster. */
    public synchronized EtcdClient client(String clientName, Duration callTimeout, String... memberNames) {
        List<String> endpoints = new ArrayList<>();
        for (String name : memberNames) {
            endpoints.add(member(name).clientEndpoint());
        }
        EtcdClient client = new EtcdClient(new EtcdClientConfig(endpoints, clientTls(clientName), callTimeout));
        clients.add(client);
        return client;
    }

    public EtcdClient client(String clientName, String... memberNames) {
        return client(clientName, EtcdClientConfig.DEFAULT_CALL_TIMEOUT, memberNames);
    }

    /** Every member's log tail, for a failure message. */
    public synchronized String logs() {
        StringBuilder out = new StringBuilder();
        running.forEach((name, p) -> out.append("--- ").append(name).append(" (alive: ").append(p.isAlive()).append(")\n")
                .append(p.logTail(15)).append('\n'));
        return out.toString();
    }

    @Override
    public synchronized void close() throws InterruptedException {
        clients.forEach(EtcdClient::close);
        for (EtcdProcess p : running.values()) {
            p.stop();
        }
        try {
            Runtime.getRuntime().removeShutdownHook(killer);
        } catch (IllegalStateException shuttingDown) {
            // the hook runs anyway
        }
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
