package dev.sextant.localcluster.mini.node;

import java.util.regex.Pattern;

/**
 * The tag of a mini control plane's etcd data volume, {@code sx1:CLUSTER:ROLE:ZONE:MEMBER} (housekeeping's
 * VolumeTags), written as the GPT name of the volume's one partition, where the node's DataVolumeMounter
 * finds it. CLUSTER is the name the image's bootstrapper has for its cluster ({@code SEXTANT_CLUSTER_NAME},
 * default {@code sextant}: mini does not set it, so the host chooses no part of it); ROLE {@code cp}, the
 * datastore's; one zone for the whole mini cluster ({@link #ZONE}, the one setting a control plane gets,
 * {@link NodeSettings#DATA_VOLUME_ZONE}); MEMBER short ({@code m0}, {@code m1}, ...): a GPT name holds 36
 * characters, and the node name would make the tag 38.
 */
public record EtcdVolumeTag(String member) {
    public static final String CLUSTER = "sextant";
    public static final String ROLE = "cp";
    public static final String ZONE = "z1";
    /** A GPT partition name: 36 UTF-16 code units. */
    public static final int MAX_LENGTH = 36;
    private static final Pattern TOKEN = Pattern.compile("[a-z0-9]([a-z0-9-]{0,30}[a-z0-9])?");

    public EtcdVolumeTag {
        if (member == null || !TOKEN.matcher(member).matches()) {
            throw new IllegalArgumentException("volume member '" + member + "' is not a short lower-case name");
        }
        if (text(member).length() > MAX_LENGTH) {
            throw new IllegalArgumentException("volume tag " + text(member) + " is longer than a GPT name ("
                    + MAX_LENGTH + " characters)");
        }
    }

    /** The volume of the control plane {@code index} ({@code control-plane-<index>}): member {@code m<index>}. */
    public static EtcdVolumeTag ofControlPlane(int index) {
        if (index < 0) {
            throw new IllegalArgumentException("control plane index " + index);
        }
        return new EtcdVolumeTag("m" + index);
    }

    @Override
    public String toString() {
        return text(member);
    }

    private static String text(String member) {
        return String.join(":", "sx1", CLUSTER, ROLE, ZONE, member);
    }
}
