package dev.sextant.housekeeping.volumes;

import java.util.regex.Pattern;

/**
 * What a data volume's tag says: {@code sx1:CLUSTER:ROLE:ZONE:MEMBER}, e.g. {@code sx1:demo:cp:z1:m1}.
 * The same text is a virtio disk serial (QEMU truncates those to 20 bytes, so keep names short) or
 * a GPT partition name (36 characters). A cloud provider maps its own tags onto this record.
 */
public record VolumeTags(String cluster, String role, String zone, String member) {
    static final String PREFIX = "sx1";
    private static final Pattern TOKEN = Pattern.compile("[a-z0-9]([a-z0-9-]{0,30}[a-z0-9])?");

    public VolumeTags {
        for (String part : new String[] {cluster, role, zone, member}) {
            if (part == null || !TOKEN.matcher(part).matches()) {
                throw new IllegalArgumentException("volume tag part '" + part + "' is not a short lower-case name");
            }
        }
    }

    /** Null when {@code text} is not a Sextant tag at all (most disks); an exception when it is one but malformed. */
    static VolumeTags parse(String text) {
        String t = text.strip();
        if (!t.startsWith(PREFIX + ":")) {
            return null;
        }
        String[] parts = t.split(":", -1);
        if (parts.length != 5) {
            throw new IllegalArgumentException("volume tag '" + t + "' is not sx1:CLUSTER:ROLE:ZONE:MEMBER");
        }
        return new VolumeTags(parts[1], parts[2], parts[3], parts[4]);
    }

    @Override
    public String toString() {
        return String.join(":", PREFIX, cluster, role, zone, member);
    }
}
