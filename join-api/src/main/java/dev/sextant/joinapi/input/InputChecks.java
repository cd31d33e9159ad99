package dev.sextant.joinapi.input;

import dev.sextant.grpcsupport.Refusal;
import com.google.protobuf.ByteString;
import dev.sextant.joinapi.refusal.JoinRefusal;
import dev.sextant.keys.member.MemberKey;
import dev.sextant.proto.v1.EtcdPeer;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Syntax of the untrusted string fields; each failure is INVALID_ARGUMENT with a message. */
public final class InputChecks {
    /** RFC 4122 textual form, lower case as cryptsetup prints LUKS UUIDs; also the KMS key id. */
    private static final Pattern UUID = Pattern.compile(
            "[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}");
    /** RFC 1123 label: what Kubernetes accepts as a node name that is also a DNS label. */
    private static final Pattern LABEL = Pattern.compile("[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?");

    /**
     * What an etcd member advertises: {@code https://HOST:PORT}, HOST a lower-case DNS name or IPv4
     * address, no path, user or query. Strict because the URLs end up in etcd's {@code --initial-cluster}
     * (name=url,name=url) on every control plane: a ',' or '=' would add members of the caller's choosing.
     */
    private static final Pattern ETCD_URL = Pattern.compile(
            "https://([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*):([1-9][0-9]{0,4})");
    private static final int MAX_ETCD_URL = 8 + 253 + 6;
    /** Where a node's VerifyService answers: HOST:PORT as in {@link #ETCD_URL}, without the scheme. */
    private static final Pattern VERIFY_ENDPOINT = Pattern.compile(
            "([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*):([1-9][0-9]{0,4})");
    private static final int MAX_VERIFY_ENDPOINT = 253 + 6;

    private InputChecks() {
    }

    public static String diskUuid(String value) throws Refusal {
        if (value.length() != 36 || !UUID.matcher(value).matches()) {
            throw JoinRefusal.invalid("disk_uuid must be a lower-case RFC 4122 UUID (8-4-4-4-12 hex digits)");
        }
        return value;
    }

    /**
     * The node's discovery public key: empty when the node sent none (it then gets no member
     * certificate), else a raw 32-byte Ed25519 key, checked before anything is copied or signed.
     */
    public static Optional<byte[]> discoveryPublicKey(ByteString value) throws Refusal {
        if (value.isEmpty()) {
            return Optional.empty();
        }
        if (value.size() != MemberKey.PUBLIC_KEY_BYTES) {
            throw JoinRefusal.invalid("discovery_public_key must be a raw " + MemberKey.PUBLIC_KEY_BYTES
                    + "-byte Ed25519 public key, got " + value.size() + " bytes");
        }
        try {
            return Optional.of(MemberKey.checkPublicKey(value.toByteArray()));
        } catch (IllegalArgumentException e) {
            throw JoinRefusal.invalid("discovery_public_key: " + e.getMessage());
        }
    }

    /** A control plane's etcd member: its name the node name, its peer and client URLs {@code https://HOST:PORT}. */
    public static EtcdPeer etcdMember(EtcdPeer member, String nodeName) throws Refusal {
        if (!member.getName().equals(nodeName)) {
            throw new Refusal(JoinRefusal.INVALID_ETCD_MEMBER, "etcd_member.name must be the node name " + nodeName
                    + ": a control plane's etcd member is named after its node");
        }
        etcdUrl("etcd_member.peer_url", member.getPeerUrl());
        etcdUrl("etcd_member.client_url", member.getClientUrl());
        return member;
    }

    private static void etcdUrl(String field, String value) throws Refusal {
        Matcher url = ETCD_URL.matcher(value);
        if (value.length() > MAX_ETCD_URL || !url.matches() || Integer.parseInt(url.group(5)) > 65535) {
            throw new Refusal(JoinRefusal.INVALID_ETCD_MEMBER, field + " must be https://HOST:PORT (a lower-case host name"
                    + " or IPv4 address and a port, no path), as the member advertises itself");
        }
    }

    /**
     * The node's VerifyService endpoint, {@code HOST:PORT} (HOST a lower-case DNS name or IPv4 address):
     * empty when the node reported none. Strict although it is only the node's word about where to ask:
     * it is stored and dialled, so nothing but a host and a port may get in.
     */
    public static Optional<String> verifyEndpoint(String value) throws Refusal {
        if (value.isEmpty()) {
            return Optional.empty();
        }
        Matcher endpoint = VERIFY_ENDPOINT.matcher(value);
        if (value.length() > MAX_VERIFY_ENDPOINT || !endpoint.matches() || Integer.parseInt(endpoint.group(5)) > 65535) {
            throw JoinRefusal.invalid("verify_endpoint must be HOST:PORT (a lower-case host name or IPv4 address and a port)");
        }
        return Optional.of(value);
    }

    public static String nodeName(String value) throws Refusal {
        if (value.isEmpty() || value.length() > 63 || !LABEL.matcher(value).matches()) {
            throw JoinRefusal.invalid("node_name must be an RFC 1123 label: 1-63 of [a-z0-9-], "
                    + "starting and ending with a letter or digit");
        }
        return value;
    }
}
