package dev.sextant.housekeeping.discovery;

import dev.sextant.keys.member.MemberCertificate;
import dev.sextant.keys.member.MemberCredentials;
import dev.sextant.keys.member.MemberKey;
import dev.sextant.keys.member.MemberRole;
import dev.sextant.keys.member.RevocationList;

import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.net.UnknownHostException;
import java.time.Clock;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Decides whether an announcement is its signer's to make, before anything of it reaches the
 * {@link RecordTable}: the certificate is the cluster discovery CA's, for this cluster, and valid
 * now; the signature is the certified key's; and each record is one the certified member may
 * publish. Names: {@code api.DOMAIN} and {@code join.DOMAIN} are the control planes' (shared by
 * all of them); {@code etcd-NODE.DOMAIN} (its etcd member) only that control plane's own; any other name must
 * start with the member's own node name. Addresses: every record's address is the one the sender's
 * messages come from, so a member cannot point a name at someone else's machine. Statements: only
 * {@code revocations.DOMAIN}, only from a control plane, and only a revocation list the discovery CA
 * signed for this cluster. Every refusal is an IllegalArgumentException saying what is wrong (no key
 * material in it). Whether the signer's key has been revoked is the {@link RecordTable}'s to decide,
 * in the same step that stores its records, so a list applied meanwhile cannot be overtaken.
 *
 * <p>Members re-announce the same bytes every period and after every view change, so the verdict
 * on an announcement's bytes is remembered (and a certificate's, across a member's versions): a
 * repeat costs a map lookup instead of two Ed25519 verifications. What depends on the moment is
 * checked every time: the certificate's validity and the sender's address.
 */
final class RecordVerifier {
    /** Bounded so an intruder cycling versions cannot grow it; a few times a large cluster's member count. */
    static final int REMEMBERED = 1024;
    private static final String ETCD_MEMBER_PREFIX = "etcd-";

    private static final String REVOCATIONS_PREFIX = "revocations.";

    /**
     * What an accepted announcement says, and who (by certificate) said it.
     *
     * @param revocations the cluster's revocation list it carries, verified; empty when it carries none
     */
    record Verified(MemberCertificate certificate, long version, Set<EndpointRecord> records,
                    Optional<SignedRevocations> revocations) {
        String nodeName() {
            return certificate.nodeName();
        }
    }

    /** A revocation list the discovery CA signed for this cluster, with its bytes, which a control plane passes on as they are. */
    record SignedRevocations(RevocationList list, byte[] encoded) {
    }

    private final RecordCodec codec;
    private final String domain;
    private final byte[] caPublicKey;
    private final byte[] clusterId;
    private final Clock clock;
    private final Map<ByteBuffer, Verified> verifiedAnnouncements = lru();
    private final Map<ByteBuffer, MemberCertificate> verifiedCertificates = lru();

    /** Verifies against the CA and cluster of this member's own (already checked) credentials. */
    RecordVerifier(RecordCodec codec, String domain, MemberCredentials own, Clock clock) {
        this.codec = codec;
        this.domain = domain;
        this.caPublicKey = own.caPublicKey();
        // Its own certificate's cluster, whatever its validity: an expired member still checks the others' records.
        this.clusterId = own.certified().clusterId();
        this.clock = clock;
    }

    /**
     * @param senderAddress the IP address the transport received the announcement from; empty when
     *                      the transport does not know it, which is refused (the next re-announce retries)
     */
    Verified verify(byte[] envelope, Optional<InetAddress> senderAddress) {
        Verified v = verifiedAnnouncements.get(ByteBuffer.wrap(envelope));
        if (v == null) {
            v = verifyBytes(envelope);
            verifiedAnnouncements.put(ByteBuffer.wrap(envelope.clone()), v);
        } else if (!v.certificate().validAt(clock.instant())) {
            throw new IllegalArgumentException("member certificate of " + v.nodeName() + " is valid only from "
                    + v.certificate().notBefore() + " to " + v.certificate().notAfter());
        }
        if (!v.records().isEmpty() && senderAddress.isEmpty()) {
            throw new IllegalArgumentException("the sender's address of " + v.nodeName() + "'s announcement is unknown");
        }
        for (EndpointRecord r : v.records()) {
            checkAddress(v.certificate(), r, senderAddress.orElseThrow());
        }
        return v;
    }

    /** Everything that depends only on the bytes: certificate, signature, records and their names. */
    private Verified verifyBytes(byte[] envelope) {
        int certStart = RecordSigner.MAGIC.length + 2;
        if (envelope.length < certStart + MemberKey.SIGNATURE_BYTES
                || !Arrays.equals(envelope, 0, RecordSigner.MAGIC.length, RecordSigner.MAGIC, 0, RecordSigner.MAGIC.length)) {
            throw new IllegalArgumentException("announcement is not a signed announcement (SXA1)");
        }
        if (envelope.length > RecordCodec.MAX_BYTES + MemberCertificate.MAX_BYTES + certStart + MemberKey.SIGNATURE_BYTES) {
            throw new IllegalArgumentException("announcement of " + envelope.length + " bytes is too large");
        }
        int certLength = ((envelope[4] & 0xff) << 8) | (envelope[5] & 0xff);
        int bodyStart = certStart + certLength;
        int sigStart = envelope.length - MemberKey.SIGNATURE_BYTES;
        if (bodyStart > sigStart) {
            throw new IllegalArgumentException("announcement's certificate length runs past its end");
        }
        MemberCertificate certificate = certificate(Arrays.copyOfRange(envelope, certStart, bodyStart));
        if (!MemberKey.verify(certificate.publicKey(), RecordSigner.signedBytes(envelope, sigStart),
                Arrays.copyOfRange(envelope, sigStart, envelope.length))) {
            throw new IllegalArgumentException("announcement is not signed by the key certified for "
                    + certificate.nodeName());
        }
        RecordCodec.Announcement a = codec.decode(Arrays.copyOfRange(envelope, bodyStart, sigStart));
        for (EndpointRecord r : a.records()) {
            checkName(certificate, r);
        }
        Optional<SignedRevocations> revocations = Optional.empty();
        for (var statement : a.statements().entrySet()) {
            revocations = Optional.of(revocations(certificate, statement.getKey(), statement.getValue()));
        }
        return new Verified(certificate, a.version(), a.records(), revocations);
    }

    /**
     * The one statement a member may publish: the cluster's revocation list under
     * {@code revocations.DOMAIN}, by a control plane, signed by the discovery CA for this cluster.
     * Its version is not judged here: a control plane that has not yet seen the newest list still
     * publishes valid records, and the record table keeps whichever list is highest.
     */
    private SignedRevocations revocations(MemberCertificate c, String name, byte[] encoded) {
        if (!name.equals(revocationsName(domain))) {
            throw new IllegalArgumentException(c.nodeName() + " may not publish the statement " + name
                    + " (the only statement is " + revocationsName(domain) + ")");
        }
        if (c.role() != MemberRole.CONTROL_PLANE) {
            throw new IllegalArgumentException(c.nodeName() + " is certified as a worker and may not publish "
                    + name + " (control planes only)");
        }
        try {
            return new SignedRevocations(verifyRevocations(encoded), encoded.clone());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(c.nodeName() + "'s " + name + ": " + e.getMessage());
        }
    }

    /** The list in {@code encoded} if this cluster's discovery CA signed it for this cluster; IllegalArgumentException otherwise. */
    RevocationList verifyRevocations(byte[] encoded) {
        return RevocationList.verify(encoded, caPublicKey, clusterId);
    }

    /** {@code revocations.<domain>}: where control planes publish the cluster's revocation list. */
    static String revocationsName(String domain) {
        return REVOCATIONS_PREFIX + domain;
    }

    private MemberCertificate certificate(byte[] encoded) {
        MemberCertificate known = verifiedCertificates.get(ByteBuffer.wrap(encoded));
        if (known != null) {
            if (!known.validAt(clock.instant())) {
                throw new IllegalArgumentException("member certificate of " + known.nodeName() + " is valid only from "
                        + known.notBefore() + " to " + known.notAfter());
            }
            return known;
        }
        MemberCertificate certificate = MemberCertificate.verify(encoded, caPublicKey, clock.instant());
        if (!certificate.sameCluster(clusterId)) {
            throw new IllegalArgumentException("member certificate of " + certificate.nodeName() + " is for another cluster");
        }
        verifiedCertificates.put(ByteBuffer.wrap(encoded), certificate);
        return certificate;
    }

    private static <V> Map<ByteBuffer, V> lru() {
        return Collections.synchronizedMap(new LinkedHashMap<>(64, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<ByteBuffer, V> eldest) {
                return size() > REMEMBERED;
            }
        });
    }

    private void checkName(MemberCertificate c, EndpointRecord r) {
        String name = r.name();
        boolean shared = name.equals("api." + domain) || name.equals("join." + domain);
        // Checked before the own-name rule: a node named "etcd-x" must not pass off etcd-x.DOMAIN, which is x's member.
        if (shared || isEtcdMemberName(name)) {
            if (c.role() != MemberRole.CONTROL_PLANE) {
                throw new IllegalArgumentException(c.nodeName() + " is certified as a worker and may not publish "
                        + name + " (control planes only)");
            }
            if (shared || name.equals(etcdMemberName(c.nodeName(), domain))) {
                return;
            }
            throw new IllegalArgumentException(c.nodeName() + " may not publish another node's name " + name);
        }
        if (!name.startsWith(c.nodeName() + ".")) {
            throw new IllegalArgumentException(c.nodeName() + " may not publish " + name
                    + " (a member publishes the shared names of its role and names under its own node name)");
        }
    }

    /** {@code etcd-<node>.<domain>}: the name of a control plane's etcd member, which its peers dial. */
    static String etcdMemberName(String nodeName, String domain) {
        return ETCD_MEMBER_PREFIX + nodeName + "." + domain;
    }

    private boolean isEtcdMemberName(String name) {
        return name.startsWith(ETCD_MEMBER_PREFIX) && name.endsWith("." + domain)
                && name.indexOf('.') == name.length() - domain.length() - 1;
    }

    private static void checkAddress(MemberCertificate c, EndpointRecord r, InetAddress sender) {
        InetAddress claimed;
        try {
            claimed = InetAddress.getByName(r.address()); // an IP literal (EndpointRecord checked): no lookup
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("record address " + r.address() + " is not an IP literal");
        }
        if (!claimed.equals(sender)) {
            throw new IllegalArgumentException(c.nodeName() + " may not publish " + r.name() + " at " + r.address()
                    + ": its announcements come from " + sender.getHostAddress());
        }
    }
}
