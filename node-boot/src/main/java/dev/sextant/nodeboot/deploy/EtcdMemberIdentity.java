package dev.sextant.nodeboot.deploy;

import java.io.IOException;
import java.io.Reader;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.Properties;

/**
 * Who this control plane is in the cluster's etcd: its member name (the node name) and the cluster name its
 * DNS names live under. Written at init beside etcd's data and read back at every later start, so the
 * member keeps the names its data dir was created with even if the node's settings change.
 *
 * @param memberName  the node name: etcd's {@code --name}
 * @param clusterName the cluster's name in {@code internal.<cluster>}, the domain endpoint discovery publishes under
 */
public record EtcdMemberIdentity(String memberName, String clusterName) {
    // RFC 1123: a node name may have dots (a subdomain), a cluster name is one label; etcd takes both as a member name.
    private static final String NODE = "[a-z0-9]([a-z0-9.-]{0,61}[a-z0-9])?";
    private static final String LABEL = "[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?";

    public EtcdMemberIdentity {
        if (memberName == null || !memberName.matches(NODE)) {
            throw new IllegalArgumentException("the etcd member name (the node name) must be an RFC 1123 name"
                    + " (lower-case letters, digits, '-' and '.', at most 63), got '" + memberName + "'");
        }
        if (clusterName == null || !clusterName.matches(LABEL)) {
            throw new IllegalArgumentException("the cluster name must be a DNS label"
                    + " (lower-case letters, digits and '-', at most 63), got '" + clusterName + "'");
        }
    }

    /** {@code etcd-<node>.internal.<cluster>}: the name it advertises to clients and peers. */
    public String dnsName() {
        return "etcd-" + memberName + ".internal." + clusterName;
    }

    /** {@code <node>.datastore.internal.<cluster>}: the name endpoint discovery publishes for a control plane's datastore. */
    public String datastoreName() {
        return memberName + ".datastore.internal." + clusterName;
    }

    void write(Path file) throws IOException {
        Properties p = new Properties();
        p.setProperty("name", memberName);
        p.setProperty("cluster", clusterName);
        StringWriter text = new StringWriter();
        p.store(text, "this control plane's etcd member, written by the Sextant bootstrapper at init");
        Files.createDirectories(file.toAbsolutePath().getParent());
        Files.writeString(file, text.toString(), StandardCharsets.UTF_8);
    }

    /** The identity written at init; empty when there is none (a node initialized before etcd came to the nodes). */
    static Optional<EtcdMemberIdentity> read(Path file) throws IOException {
        if (!Files.exists(file)) {
            return Optional.empty();
        }
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            p.load(r);
        }
        try {
            return Optional.of(new EtcdMemberIdentity(p.getProperty("name"), p.getProperty("cluster")));
        } catch (IllegalArgumentException e) {
            throw new IOException(file + " is damaged: " + e.getMessage(), e);
        }
    }
}
