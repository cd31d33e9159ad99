package dev.sextant.etcd.process;

import dev.sextant.etcd.pki.EtcdTlsFiles;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * One etcd member's settings, and the command line they make: the one place that decides how Sextant
 * runs etcd, whether as a child process ({@link EtcdProcess}) or as a systemd unit a node writes.
 * TLS only: both listeners are https, both require a client certificate of the etcd CA, and nothing
 * else listens (no plaintext client URL, no separate metrics URL, no v2 API). A member binds its listen
 * URLs (IP addresses) and advertises its client and peer URLs, which may name it instead.
 *
 * @param name           the member's name, unique in the cluster
 * @param dataDir        where etcd keeps its write-ahead log and database
 * @param clientUrl      {@code https://HOST:PORT} it advertises to clients
 * @param peerUrl        {@code https://HOST:PORT} it advertises to other members (its name in the cluster's membership)
 * @param initialCluster every member's name and peer URL, this one's included (read only on the first
 *                       start: a data dir that exists already knows its cluster)
 * @param state          {@code NEW} for the first member of a new cluster, {@code EXISTING} for one added
 *                       to a running cluster
 * @param clusterToken   keeps two clusters set up side by side from taking each other's members
 * @param clientTls      the CA clients must be certified by, and the member's certificate and key there
 * @param peerTls        the same for the peer port (the member certificate serves as server and client)
 * @param listenClientUrl {@code https://IP:PORT} it binds for clients (etcd binds IP addresses only, and refuses a
 *                       host name here): the client URL itself in the shorter constructor and the factories
 * @param listenPeerUrl  {@code https://IP:PORT} it binds for other members: the peer URL itself there
 * @param heartbeat      how often the leader tells the followers it is there; a follower calls an election after
 *                       {@link #ELECTION_PER_HEARTBEAT} of them unheard (etcd's own defaults: 100 ms and 1 s). Every
 *                       member of a cluster should run with the same value.
 */
public record EtcdMemberConfig(String name, Path dataDir, String clientUrl, String peerUrl, Map<String, String> initialCluster,
                               ClusterState state, String clusterToken, EtcdTlsFiles clientTls, EtcdTlsFiles peerTls,
                               String listenClientUrl, String listenPeerUrl, Duration heartbeat) {
    public enum ClusterState { NEW, EXISTING }

    /** etcd's default heartbeat interval. */
    public static final Duration DEFAULT_HEARTBEAT = Duration.ofMillis(100);
    /** etcd's tuning guide: an election timeout of about ten heartbeats (its defaults keep that ratio). */
    public static final int ELECTION_PER_HEARTBEAT = 10;
    /** etcd refuses an election timeout above 50 s. */
    private static final Duration MAX_HEARTBEAT = Duration.ofSeconds(5);

    public EtcdMemberConfig {
        requireName(name);
        Objects.requireNonNull(dataDir, "dataDir");
        requireHttps("client URL", clientUrl);
        requireHttps("peer URL", peerUrl);
        requireBindable("listen client URL", listenClientUrl);
        requireBindable("listen peer URL", listenPeerUrl);
        SortedMap<String, String> sorted = new TreeMap<>(initialCluster);
        sorted.forEach((member, url) -> {
            requireName(member);
            requireHttps("peer URL of " + member, url);
        });
        if (!peerUrl.equals(sorted.get(name))) {
            throw new IllegalArgumentException("the initial cluster must list this member as " + name + "=" + peerUrl + ", got " + sorted);
        }
        initialCluster = Collections.unmodifiableSortedMap(sorted);
        Objects.requireNonNull(state, "state");
        requireName(clusterToken);
        Objects.requireNonNull(clientTls, "clientTls");
        Objects.requireNonNull(peerTls, "peerTls");
        Objects.requireNonNull(heartbeat, "heartbeat");
        if (heartbeat.toMillis() < 1 || heartbeat.compareTo(MAX_HEARTBEAT) > 0) {
            throw new IllegalArgumentException("the etcd heartbeat is 1 ms to " + MAX_HEARTBEAT.toSeconds()
                    + " s (its election timeout, " + ELECTION_PER_HEARTBEAT + " times it, at most 50 s), got " + heartbeat);
        }
    }

    /** With etcd's default heartbeat. */
    public EtcdMemberConfig(String name, Path dataDir, String clientUrl, String peerUrl, Map<String, String> initialCluster,
                            ClusterState state, String clusterToken, EtcdTlsFiles clientTls, EtcdTlsFiles peerTls,
                            String listenClientUrl, String listenPeerUrl) {
        this(name, dataDir, clientUrl, peerUrl, initialCluster, state, clusterToken, clientTls, peerTls, listenClientUrl,
                listenPeerUrl, DEFAULT_HEARTBEAT);
    }

    /** A member that listens where it is reached: each URL both bound and advertised (IP addresses then). */
    public EtcdMemberConfig(String name, Path dataDir, String clientUrl, String peerUrl, Map<String, String> initialCluster,
                            ClusterState state, String clusterToken, EtcdTlsFiles clientTls, EtcdTlsFiles peerTls) {
        this(name, dataDir, clientUrl, peerUrl, initialCluster, state, clusterToken, clientTls, peerTls, clientUrl, peerUrl);
    }

    /** The first member of a new cluster: it alone in the initial cluster. */
    public static EtcdMemberConfig first(String name, Path dataDir, String clientUrl, String peerUrl, String clusterToken,
                                         EtcdTlsFiles tls) {
        return new EtcdMemberConfig(name, dataDir, clientUrl, peerUrl, Map.of(name, peerUrl), ClusterState.NEW, clusterToken, tls, tls);
    }

    /** A member joining a running cluster whose members (this one included, as etcd lists them after the add) are {@code initialCluster}. */
    public static EtcdMemberConfig joining(String name, Path dataDir, String clientUrl, String peerUrl, Map<String, String> initialCluster,
                                           String clusterToken, EtcdTlsFiles tls) {
        return new EtcdMemberConfig(name, dataDir, clientUrl, peerUrl, initialCluster, ClusterState.EXISTING, clusterToken, tls, tls);
    }

    /** The client endpoint ({@code host:port}) of this member. */
    public String clientEndpoint() {
        return URI.create(clientUrl).getAuthority();
    }

    /** etcd's arguments, without the program: what a systemd unit's ExecStart or a child process is given after the binary. */
    public List<String> arguments() {
        List<String> args = new ArrayList<>();
        args.add("--name=" + name);
        args.add("--data-dir=" + dataDir);
        args.add("--listen-client-urls=" + listenClientUrl);
        args.add("--advertise-client-urls=" + clientUrl);
        args.add("--listen-peer-urls=" + listenPeerUrl);
        args.add("--initial-advertise-peer-urls=" + peerUrl);
        args.add("--initial-cluster=" + initialCluster.entrySet().stream()
                .map(e -> e.getKey() + "=" + e.getValue()).collect(Collectors.joining(",")));
        args.add("--initial-cluster-state=" + state.name().toLowerCase(Locale.ROOT));
        args.add("--initial-cluster-token=" + clusterToken);
        // etcd 3.4.23 was seen to require a client certificate of the trusted CA as soon as a trusted CA
        // file is given, with or without the -cert-auth flag (EtcdTlsAttacksTest stayed green with the flag
        // alone removed): both are given, so that neither alone keeps a port closed.
        args.add("--client-cert-auth");
        args.add("--trusted-ca-file=" + clientTls.caFile());
        args.add("--cert-file=" + clientTls.certFile());
        args.add("--key-file=" + clientTls.keyFile());
        args.add("--peer-client-cert-auth");
        args.add("--peer-trusted-ca-file=" + peerTls.caFile());
        args.add("--peer-cert-file=" + peerTls.certFile());
        args.add("--peer-key-file=" + peerTls.keyFile());
        // Said outright although they are 3.4's defaults, so that a default changed by a package update cannot open them.
        args.add("--enable-v2=false");
        args.add("--auto-tls=false");
        args.add("--peer-auto-tls=false");
        args.add("--strict-reconfig-check=true");
        args.add("--heartbeat-interval=" + heartbeat.toMillis());
        args.add("--election-timeout=" + heartbeat.toMillis() * ELECTION_PER_HEARTBEAT);
        args.add("--logger=zap");
        args.add("--log-outputs=stderr");
        return List.copyOf(args);
    }

    private static void requireName(String name) {
        if (name == null || !name.matches("[A-Za-z0-9][A-Za-z0-9._-]{0,62}")) {
            throw new IllegalArgumentException("an etcd member name or cluster token is 1 to 63 letters, digits, '.', '_' or '-', got " + name);
        }
    }

    /** etcd 3.4 refuses to start on a listen URL whose host is neither an IP address nor "localhost" (checkBindURLs). */
    private static void requireBindable(String what, String url) {
        requireHttps(what, url);
        String host = URI.create(url).getHost();
        boolean ipLiteral = host.matches("(\\d{1,3}\\.){3}\\d{1,3}") || host.startsWith("[");
        if (!ipLiteral && !host.equals("localhost")) {
            throw new IllegalArgumentException("the etcd " + what + " must be https://IP:PORT: etcd binds IP addresses only, got " + url
                    + " (a member that advertises a name is given the addresses to bind apart)");
        }
    }

    private static void requireHttps(String what, String url) {
        URI uri;
        try {
            uri = URI.create(url);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("the etcd " + what + " is not a URL: " + url, e);
        }
        if (!"https".equals(uri.getScheme()) || uri.getHost() == null || uri.getPort() < 1
                || !(uri.getRawPath() == null || uri.getRawPath().isEmpty()) || uri.getRawQuery() != null) {
            throw new IllegalArgumentException("the etcd " + what + " must be https://HOST:PORT (TLS only), got " + url);
        }
    }
}
