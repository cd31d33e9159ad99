package dev.sextant.nodeboot.endpointdiscovery;

import dev.sextant.keys.member.MemberCertificate;
import dev.sextant.keys.member.MemberCredentials;
import dev.sextant.keys.member.MemberKey;
import dev.sextant.keys.member.MemberRole;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Clock;
import java.util.Arrays;
import java.util.Optional;
import java.util.Set;

/**
 * Decides whether an announcement is its signer's to make, before anything of it reaches the
 * {@link RecordTable}: the certificate is the cluster discovery CA's, for this cluster, and valid
 * now; the signature is the certified key's; and each record is one the certified member may
 * publish. Names: {@code api.DOMAIN} and {@code join.DOMAIN} are the control planes' (shared by
 * all of them); {@code NODE.datastore.DOMAIN} only that control plane's own; any other name must
 * start with the member's own node name. Addresses: every record's address is the one the sender's
 * messages come from, so a member cannot point a name at someone else's machine. Every refusal is
 * an IllegalArgumentException saying what is wrong (no key material in it).
 */
final class RecordVerifier {
    /** What an accepted announcement says, and who (by certificate) said it. */
    record Verified(String nodeName, MemberRole role, long version, Set<EndpointRecord> records) {
    }

    private final RecordCodec codec;
    private final String domain;
    private final byte[] caPublicKey;
    private final byte[] clusterId;
    private final Clock clock;

    /** Verifies against the CA and cluster of this member's own (already checked) credentials. */
    RecordVerifier(RecordCodec codec, String domain, MemberCredentials own, Clock clock) {
        this.codec = codec;
        this.domain = domain;
        this.caPublicKey = own.caPublicKey();
        this.clusterId = own.check(clock.instant()).clusterId();
        this.clock = clock;
    }

    /**
     * @param senderAddress the IP address the transport received the announcement from; empty when
     *                      the transport does not know it, which is refused (the next re-announce retries)
     */
    Verified verify(byte[] envelope, Optional<InetAddress> senderAddress) {
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
        MemberCertificate certificate = MemberCertificate.verify(Arrays.copyOfRange(envelope, certStart, bodyStart),
                caPublicKey, clock.instant());
        if (!certificate.sameCluster(clusterId)) {
            throw new IllegalArgumentException("member certificate of " + certificate.nodeName() + " is for another cluster");
        }
        if (!MemberKey.verify(certificate.publicKey(), RecordSigner.signedBytes(envelope, sigStart),
                Arrays.copyOfRange(envelope, sigStart, envelope.length))) {
            throw new IllegalArgumentException("announcement is not signed by the key certified for "
                    + certificate.nodeName());
        }
        RecordCodec.Announcement a = codec.decode(Arrays.copyOfRange(envelope, bodyStart, sigStart));
        if (!a.records().isEmpty() && senderAddress.isEmpty()) {
            throw new IllegalArgumentException("the sender's address of " + certificate.nodeName() + "'s announcement is unknown");
        }
        for (EndpointRecord r : a.records()) {
            checkName(certificate, r);
            checkAddress(certificate, r, senderAddress.orElseThrow());
        }
        return new Verified(certificate.nodeName(), certificate.role(), a.version(), a.records());
    }

    private void checkName(MemberCertificate c, EndpointRecord r) {
        String name = r.name();
        boolean shared = name.equals("api." + domain) || name.equals("join." + domain);
        if (shared || name.endsWith(".datastore." + domain)) {
            if (c.role() != MemberRole.CONTROL_PLANE) {
                throw new IllegalArgumentException(c.nodeName() + " is certified as a worker and may not publish "
                        + name + " (control planes only)");
            }
            if (shared || name.equals(c.nodeName() + ".datastore." + domain)) {
                return;
            }
            throw new IllegalArgumentException(c.nodeName() + " may not publish another node's name " + name);
        }
        if (!name.startsWith(c.nodeName() + ".")) {
            throw new IllegalArgumentException(c.nodeName() + " may not publish " + name
                    + " (a member publishes the shared names of its role and names under its own node name)");
        }
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
