package dev.sextant.clusterservices;

import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * What the init node owns before any other node can ask for it: its node name and its disk UUIDs
 * (state disk first, then data volumes), bound to its TPM AK. The join service claims them in its
 * binding store at start-up, before it serves, so no attested caller can claim them first.
 *
 * @param akNameHex hex of the init node's TPM AK name
 * @param nodeName  the init node's Kubernetes node name
 * @param diskUuids the state disk's UUID first, then the data volumes' UUIDs
 * @param verifyEndpoint "host:port" of the init node's VerifyService, as its later rejoin tickets report it:
 *                  where the re-attestation duty asks it (and renews its member certificate) before any
 *                  rejoin; "" when unknown
 */
public record InitNodeBinding(String akNameHex, String nodeName, List<String> diskUuids, String verifyEndpoint) {
    public InitNodeBinding(String akNameHex, String nodeName, List<String> diskUuids) {
        this(akNameHex, nodeName, diskUuids, "");
    }

    // The join service checks the same syntax (join-api InputChecks) and would refuse to start.
    private static final Pattern UUID = Pattern.compile(
            "[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}");
    private static final Pattern NODE_NAME = Pattern.compile("[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?");

    public InitNodeBinding {
        Objects.requireNonNull(verifyEndpoint, "verifyEndpoint");
        Objects.requireNonNull(akNameHex, "akNameHex");
        Objects.requireNonNull(nodeName, "nodeName");
        Objects.requireNonNull(diskUuids, "diskUuids");
        if (akNameHex.isEmpty() || !isHex(akNameHex)) {
            throw new IllegalArgumentException("init node AK name is not an even-length hex string: '" + akNameHex + "'");
        }
        if (!NODE_NAME.matcher(nodeName).matches()) {
            throw new IllegalArgumentException("init node name '" + nodeName + "' is not an RFC 1123 label (1-63 of [a-z0-9-])");
        }
        diskUuids = List.copyOf(diskUuids);
        if (diskUuids.isEmpty()) {
            throw new IllegalArgumentException("init node has no disk UUID (its state disk comes first)");
        }
        for (String uuid : diskUuids) {
            if (!UUID.matcher(uuid).matches()) {
                throw new IllegalArgumentException("init node disk UUID '" + uuid + "' is not a lower-case RFC 4122 UUID");
            }
        }
    }

    private static boolean isHex(String s) {
        if (s.length() % 2 != 0) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            if (!HexFormat.isHexDigit(s.charAt(i))) {
                return false;
            }
        }
        return true;
    }
}
