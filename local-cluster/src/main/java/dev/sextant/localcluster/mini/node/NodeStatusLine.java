package dev.sextant.localcluster.mini.node;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The one line a node prints on its serial console when bootstrapping ends:
 * {@code SEXTANT-STATUS bootstrapped role=<control-plane|worker> disk=<encrypted:UUID|none> kubernetes=<...>
 * via=<init|join|rejoin|recovery> since=<ISO-8601 UTC> etcd=<member|learner|none> image=<version|unknown>} or
 * {@code SEXTANT-STATUS failed reason=<text>}. A bootstrapped line without via and since (an older node) is no
 * status line; one without etcd or image (a node from before they came) is, those "unknown". The console is
 * written by the guest, so unknown fields are kept as they are and missing ones read as "unknown";
 * nothing here is evidence (the aTLS quote is), it is what the node says about itself.
 */
public record NodeStatusLine(boolean bootstrapped, Map<String, String> fields, String line) {
    public static final Pattern ANY = Pattern.compile("SEXTANT-STATUS (bootstrapped|failed)\\b.*");
    private static final Pattern FIELD = Pattern.compile("(\\w[\\w-]*)=(\\S*)");
    private static final Pattern REASON = Pattern.compile("reason=(.*)$");

    public NodeStatusLine {
        fields = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(fields));
    }

    /** Parses a console line; empty when it is no status line. */
    public static Optional<NodeStatusLine> parse(String consoleLine) {
        Matcher any = ANY.matcher(consoleLine);
        if (!any.find()) {
            return Optional.empty();
        }
        String line = any.group();
        boolean bootstrapped = any.group(1).equals("bootstrapped");
        Map<String, String> fields = new LinkedHashMap<>();
        if (bootstrapped) {
            Matcher field = FIELD.matcher(line);
            while (field.find()) {
                fields.put(field.group(1), field.group(2));
            }
            if (!fields.containsKey("via") || !fields.containsKey("since")) {
                return Optional.empty();
            }
        } else {
            Matcher reason = REASON.matcher(line);
            fields.put("reason", reason.find() ? reason.group(1).strip() : "(none given)");
        }
        return Optional.of(new NodeStatusLine(bootstrapped, fields, line));
    }

    /** The last status line among {@code consoleLines}, if any. */
    public static Optional<NodeStatusLine> last(List<String> consoleLines) {
        for (int i = consoleLines.size() - 1; i >= 0; i--) {
            Optional<NodeStatusLine> status = parse(consoleLines.get(i));
            if (status.isPresent()) {
                return status;
            }
        }
        return Optional.empty();
    }

    public String role() {
        return fields.getOrDefault("role", "unknown");
    }

    public String disk() {
        return fields.getOrDefault("disk", "unknown");
    }

    public String kubernetes() {
        return fields.getOrDefault("kubernetes", "unknown");
    }

    /** How the node became a member this boot: init, join, rejoin or recovery. */
    public String via() {
        return fields.getOrDefault("via", "unknown");
    }

    /** When its state disk was first initialized, as the node read it back from that disk. */
    public String since() {
        return fields.getOrDefault("since", "unknown");
    }

    /** What the node is in the cluster's etcd: member, learner or none. */
    public String etcd() {
        return fields.getOrDefault("etcd", "unknown");
    }

    /** The image version the node's os-release names (what it says, not what a quote proved). */
    public String image() {
        return fields.getOrDefault("image", "unknown");
    }

    public String reason() {
        return fields.getOrDefault("reason", "");
    }

    /** The LUKS2 UUID of an encrypted state disk; empty when the node reports none. */
    public Optional<String> encryptedDisk() {
        String disk = disk();
        return disk.startsWith("encrypted:") ? Optional.of(disk.substring("encrypted:".length())) : Optional.empty();
    }

    /** "yes (LUKS2 UUID)" for an encrypted state disk, else what the node said. */
    public String diskSummary() {
        return encryptedDisk().map(uuid -> "yes (" + uuid + ")").orElse("no (" + disk() + ")");
    }
}
