package dev.sextant.joinapi.nodestate;

import dev.sextant.joinapi.binding.BindingKey;
import java.util.regex.Pattern;

/** The etcd keys of issue 40 (docs/re-attestation.md), all under {@link BindingKey#ROOT}. */
final class NodeStateKeys {
    static final String NODES = BindingKey.ROOT + "nodes/";
    static final String REVOKED = BindingKey.ROOT + "revoked/";
    static final String REVOCATIONS_VERSION = BindingKey.ROOT + "revocations/version";
    static final String REVOCATION_LIST = BindingKey.ROOT + "revocations/list";
    static final String NODE_BINDINGS = BindingKey.ROOT + "bindings/node/";
    static final String MACHINE_BINDINGS = BindingKey.ROOT + "bindings/machine/";
    /**
     * Names and AKs are checked where they enter (RFC 1123 labels, hex), but keys are built by
     * concatenation, so this holds again what no subject may contain: a '/' would reach another key.
     */
    private static final Pattern SUBJECT = Pattern.compile("[a-z0-9][a-z0-9-]*");

    private NodeStateKeys() {
    }

    static String endpoint(String node) {
        return NODES + subject(node) + "/endpoint";
    }

    static String attestation(String node) {
        return NODES + subject(node) + "/attestation";
    }

    static String memberKey(String node) {
        return NODES + subject(node) + "/member-key";
    }

    static String revoked(String ak) {
        return REVOKED + subject(ak);
    }

    private static String subject(String subject) {
        if (subject == null || !SUBJECT.matcher(subject).matches()) {
            throw new IllegalArgumentException("not a node name or AK name of a key");
        }
        return subject;
    }
}
