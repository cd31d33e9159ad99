package dev.sextant.keys.member;

import java.time.Duration;
import java.time.Instant;

/**
 * The rule by which a member takes a renewed certificate (docs/re-attestation.md, "Short-lived
 * identities"): the discovery CA it received at join signed it; it certifies the same key, node name,
 * role and cluster as the member's current certificate; it is valid now; and its validity ends later
 * than the current one's. The CA's signature is the authority, not the caller: a renewal can only
 * extend the identity the CA gave this member, never change it, and never bring back an older one.
 */
public final class CertificateRenewal {
    /** Why a renewal was refused; {@code malformed} for bytes that are no certificate at all. */
    public static final class Refused extends Exception {
        private final Kind kind;

        Refused(Kind kind, String message) {
            super(message);
            this.kind = kind;
        }

        public Kind kind() {
            return kind;
        }
    }

    /**
     * {@code MALFORMED}: not a certificate; {@code NOT_THIS_MEMBER}: another CA's, or for another key, name,
     * role or cluster (the caller has no authority over this member's identity); {@code NOT_LATER}: this
     * member's own identity, but not valid now or not ending later than the current certificate.
     */
    public enum Kind { MALFORMED, NOT_THIS_MEMBER, NOT_LATER }

    private CertificateRenewal() {
    }

    /**
     * {@code current} with {@code offered} as its certificate, or Refused saying what differs (names and
     * times, no key material).
     */
    public static MemberCredentials renew(MemberCredentials current, byte[] offered, Instant now) throws Refused {
        MemberCertificate held = current.certified();
        if (offered.length == 0 || offered.length > MemberCertificate.MAX_BYTES) {
            throw new Refused(Kind.MALFORMED, "the renewal carries " + offered.length + " bytes, not a member certificate");
        }
        MemberCertificate renewed;
        try {
            renewed = MemberCertificate.signedBy(offered, current.caPublicKey());
        } catch (IllegalArgumentException e) {
            boolean foreign = e.getMessage().contains("not signed by");
            throw new Refused(foreign ? Kind.NOT_THIS_MEMBER : Kind.MALFORMED, "renewal refused: " + e.getMessage()
                    + (foreign ? " (the CA this node received at join)" : ""));
        }
        String differs = differences(held, renewed);
        if (!differs.isEmpty()) {
            throw new Refused(Kind.NOT_THIS_MEMBER, "renewal refused: it certifies " + differs + " than this node's certificate");
        }
        if (!renewed.validAt(now)) {
            throw new Refused(Kind.NOT_LATER, "renewal refused: it is valid only from " + renewed.notBefore() + " to "
                    + renewed.notAfter() + ", not now (" + now + ")");
        }
        if (!renewed.notAfter().isAfter(held.notAfter())) {
            throw new Refused(Kind.NOT_LATER, "renewal refused: it ends at " + renewed.notAfter()
                    + ", not later than this node's certificate (" + held.notAfter() + ")");
        }
        return current.withCertificate(offered);
    }

    /**
     * A holder of the discovery CA renews its own certificate (a control plane at boot, docs/re-attestation.md,
     * "A control plane renews itself"): {@code ca} certifies the same key, node name, role and cluster as
     * {@code current}, valid from now (less {@link DiscoveryCa#BACKDATE}) for {@code validity}, and the result
     * is taken by {@link #renew}, the rule a renewal from the re-attestation holder passes: one pipeline, so a
     * node whose CA is not the one it received at join (it holds no master secret and made one up) is refused
     * here as it would be by every receiver.
     */
    public static MemberCredentials renewSelf(MemberCredentials current, DiscoveryCa ca, Instant now, Duration validity)
            throws Refused {
        MemberCertificate held = current.certified();
        byte[] issued = ca.certifyMember(held.publicKey(), held.nodeName(), held.role(), held.clusterId(), now, validity);
        return renew(current, issued, now);
    }

    private static String differences(MemberCertificate held, MemberCertificate renewed) {
        StringBuilder s = new StringBuilder();
        if (!java.security.MessageDigest.isEqual(held.publicKey(), renewed.publicKey())) {
            s.append("another key");
        }
        if (!held.nodeName().equals(renewed.nodeName())) {
            append(s, "another node name (" + renewed.nodeName() + ", not " + held.nodeName() + ")");
        }
        if (held.role() != renewed.role()) {
            append(s, "another role (" + renewed.role() + ", not " + held.role() + ")");
        }
        if (!held.sameCluster(renewed.clusterId())) {
            append(s, "another cluster");
        }
        return s.toString();
    }

    private static void append(StringBuilder s, String what) {
        s.append(s.isEmpty() ? "" : ", ").append(what);
    }
}
