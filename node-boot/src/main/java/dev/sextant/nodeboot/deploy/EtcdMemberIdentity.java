package dev.sextant.nodeboot.deploy;

import dev.sextant.etcd.process.EtcdMemberConfig.ClusterState;
import java.io.IOException;
import java.io.Reader;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.stream.Collectors;

/**
 * Who this control plane is in the cluster's etcd, and how its member first started: its member name (the node
 * name), the cluster name its DNS names live under, and the initial cluster of its first start (itself alone in
 * a new cluster at init; the members its ticket listed, joining an existing cluster, at a control plane's join).
 * Written beside etcd's data at that first start and read back at every later start, so the member keeps the
 * names its data dir was created with, and etcd.env says what it said at the first start, even if the node's
 * settings change (etcd reads the initial cluster only while its data dir is empty).
 *
 * @param memberName     the node name: etcd's {@code --name}
 * @param clusterName    the cluster's name in {@code internal.<cluster>}, the domain endpoint discovery publishes under
 * @param initialCluster etcd's {@code --initial-cluster} at the first start: member name to peer URL, this member's included
 * @param initialState   etcd's {@code --initial-cluster-state} at the first start
 */
public record EtcdMemberIdentity(String memberName, String clusterName, Map<String, String> initialCluster,
                                 ClusterState initialState) {
    // RFC 1123: a node name may have dots (a subdomain), a cluster name is one label; etcd takes both as a member name.
    private static final String NODE = "[a-z0-9]([a-z0-9.-]{0,61}[a-z0-9])?";
    private static final String LABEL = "[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?";

    public EtcdMemberIdentity {
        requireNodeName(memberName);
        if (clusterName == null || !clusterName.matches(LABEL)) {
            throw new IllegalArgumentException("the cluster name must be a DNS label"
                    + " (lower-case letters, digits and '-', at most 63), got '" + clusterName + "'");
        }
        if (initialCluster == null || !initialCluster.containsKey(memberName)) {
            throw new IllegalArgumentException("the initial cluster must list the member " + memberName + " itself");
        }
        initialCluster = Collections.unmodifiableMap(new LinkedHashMap<>(initialCluster));
        if (initialState == null) {
            throw new IllegalArgumentException("the initial cluster state is missing");
        }
    }

    /** Init: the first member of a new cluster, alone in it under {@code peerUrl}. */
    public static EtcdMemberIdentity first(String memberName, String clusterName, String peerUrl) {
        return new EtcdMemberIdentity(memberName, clusterName, Map.of(memberName, peerUrl), ClusterState.NEW);
    }

    /** A control plane's join: a member the join service added to the running cluster {@code initialCluster}. */
    public static EtcdMemberIdentity joining(String memberName, String clusterName, Map<String, String> initialCluster) {
        return new EtcdMemberIdentity(memberName, clusterName, initialCluster, ClusterState.EXISTING);
    }

    /** Whether etcd, the certificates and endpoint discovery all take {@code name} as a node's member name. */
    public static boolean isNodeName(String name) {
        return name != null && name.matches(NODE);
    }

    static void requireNodeName(String name) {
        if (!isNodeName(name)) {
            throw new IllegalArgumentException("the etcd member name (the node name) must be an RFC 1123 name"
                    + " (lower-case letters, digits, '-' and '.', at most 63), got '" + name + "'");
        }
    }

    /** {@code etcd-<node>.internal.<cluster>}: the name it advertises to clients and peers, unless the settings name another host. */
    public static String dnsName(String memberName, String clusterName) {
        return "etcd-" + memberName + ".internal." + clusterName;
    }

    public String dnsName() {
        return dnsName(memberName, clusterName);
    }

    /** The peer URL this member joined its cluster with: its identity in the cluster's membership. */
    public String peerUrl() {
        return initialCluster.get(memberName);
    }

    void write(Path file) throws IOException {
        Properties p = new Properties();
        p.setProperty("name", memberName);
        p.setProperty("cluster", clusterName);
        p.setProperty("initial-cluster", initialCluster.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue())
                .collect(Collectors.joining(",")));
        p.setProperty("initial-cluster-state", initialState.name().toLowerCase(Locale.ROOT));
        StringWriter text = new StringWriter();
        p.store(text, "this control plane's etcd member as it first started, written by the Sextant bootstrapper");
        Files.createDirectories(file.toAbsolutePath().getParent());
        Files.writeString(file, text.toString(), StandardCharsets.UTF_8);
    }

    /**
     * The identity written at the first start; empty when there is none (a node initialized before etcd came to
     * the nodes). A file without the initial cluster was written by an init that did not record it: that member
     * is the first of a new cluster, under the peer URL {@code settings} advertise for it.
     */
    static Optional<EtcdMemberIdentity> read(Path file, NodeLocalSettings settings) throws IOException {
        if (!Files.exists(file)) {
            return Optional.empty();
        }
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            p.load(r);
        }
        String name = p.getProperty("name");
        String cluster = p.getProperty("cluster");
        try {
            if (p.getProperty("initial-cluster") == null) {
                return Optional.of(first(name, cluster, EtcdAdvertisedUrls.of(settings, name, cluster).peerUrl()));
            }
            return Optional.of(new EtcdMemberIdentity(name, cluster, parseCluster(p.getProperty("initial-cluster")),
                    ClusterState.valueOf(p.getProperty("initial-cluster-state", "").toUpperCase(Locale.ROOT))));
        } catch (IllegalArgumentException e) {
            throw new IOException(file + " is damaged: " + e.getMessage(), e);
        }
    }

    private static Map<String, String> parseCluster(String text) {
        Map<String, String> members = new LinkedHashMap<>();
        for (String entry : text.split(",")) {
            int eq = entry.indexOf('=');
            if (eq < 1) {
                throw new IllegalArgumentException("initial-cluster entry '" + entry + "' is not NAME=PEER_URL");
            }
            members.put(entry.substring(0, eq), entry.substring(eq + 1));
        }
        return members;
    }
}
