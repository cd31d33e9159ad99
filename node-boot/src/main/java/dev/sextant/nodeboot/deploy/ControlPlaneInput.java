package dev.sextant.nodeboot.deploy;

import dev.sextant.proto.v1.SignedMeasurements;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a joining control plane's services are made from, all of it from its join ticket (checked before the
 * node lock): the KMS's master secret and salt, the measurement salt, what joining nodes must prove (signed
 * measurements, EK CA bundle), and the running etcd cluster its member joins. Holds secrets: no toString with
 * content.
 *
 * @param nodeName    this node's name: its etcd member's name
 * @param etcdMembers every member's name and peer URL, this node's own included, as the join service listed them
 */
public record ControlPlaneInput(byte[] masterSecret, byte[] masterSalt, byte[] measurementSalt,
                                SignedMeasurements joinMeasurements, String ekCaPem, String nodeName,
                                Map<String, String> etcdMembers) {
    public ControlPlaneInput {
        etcdMembers = Collections.unmodifiableMap(new LinkedHashMap<>(etcdMembers));
    }

    @Override
    public String toString() {
        return "ControlPlaneInput[nodeName=" + nodeName + ", etcdMembers=" + etcdMembers + ", secrets redacted]";
    }
}
