package dev.sextant.joinapi.binding;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * One key of the cluster store's layout, version 1 (docs/cluster-store.md): what it is about
 * ({@code kind}) and whose it is ({@code subject}: a disk UUID, a node name or an AK name in
 * lower-case hex; empty for the cluster-wide limit). {@link #key()} is the etcd key.
 */
public record BindingKey(Kind kind, String subject) {
    /** Every key of layout version 1 starts with this. */
    public static final String ROOT = "/sextant/v1/";
    /** Where admitted control planes are listed, relative to {@link #ROOT}: counted and guarded as one prefix. */
    public static final String CONTROL_PLANES = "control-planes/";
    /**
     * Subjects are checked before they get here (UUID, RFC 1123 label, hex), but a key is built by
     * concatenation, so this holds again what no subject may contain: a '/' would reach another key.
     */
    private static final Pattern SUBJECT = Pattern.compile("[a-z0-9-]*");

    public enum Kind {
        /** disk UUID → AK name of the machine that owns it (its state disk, or the init node's data volume). */
        DISK,
        /** node name → AK name of the machine that owns it. */
        NODE,
        /** AK name → the UUID of that machine's one state disk. */
        MACHINE_DISK,
        /** AK name → that machine's one node name. */
        MACHINE_NODE,
        /** AK name → the one role ({@code control-plane} or {@code worker}) that machine joined in. */
        MACHINE_ROLE,
        /** AK name → the node name of an admitted control plane. */
        CONTROL_PLANE,
        /** The most control planes the cluster admits ({@code sextant init --control-planes}); no subject. */
        CONTROL_PLANE_LIMIT
    }

    public BindingKey {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(subject, "subject");
        if (!SUBJECT.matcher(subject).matches() || subject.isEmpty() != (kind == Kind.CONTROL_PLANE_LIMIT)) {
            throw new IllegalArgumentException("not a subject of a " + kind + " key");
        }
    }

    public static BindingKey disk(String uuid) {
        return new BindingKey(Kind.DISK, uuid);
    }

    public static BindingKey node(String nodeName) {
        return new BindingKey(Kind.NODE, nodeName);
    }

    public static BindingKey machineDisk(String ak) {
        return new BindingKey(Kind.MACHINE_DISK, ak);
    }

    public static BindingKey machineNode(String ak) {
        return new BindingKey(Kind.MACHINE_NODE, ak);
    }

    public static BindingKey machineRole(String ak) {
        return new BindingKey(Kind.MACHINE_ROLE, ak);
    }

    public static BindingKey controlPlane(String ak) {
        return new BindingKey(Kind.CONTROL_PLANE, ak);
    }

    public static BindingKey controlPlaneLimit() {
        return new BindingKey(Kind.CONTROL_PLANE_LIMIT, "");
    }

    /** The key below {@link #ROOT}, as docs/cluster-store.md's table writes it. */
    public String path() {
        return switch (kind) {
            case DISK -> "bindings/disk/" + subject;
            case NODE -> "bindings/node/" + subject;
            case MACHINE_DISK -> "bindings/machine/" + subject + "/disk";
            case MACHINE_NODE -> "bindings/machine/" + subject + "/node";
            case MACHINE_ROLE -> "bindings/machine/" + subject + "/role";
            case CONTROL_PLANE -> CONTROL_PLANES + subject;
            case CONTROL_PLANE_LIMIT -> "cluster/control-planes";
        };
    }

    /** The etcd key. */
    public String key() {
        return ROOT + path();
    }
}
