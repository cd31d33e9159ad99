package dev.sextant.joinapi.reattest;

import dev.sextant.keys.member.DiscoveryCa;
import dev.sextant.joinapi.binding.MachineClaim;
import dev.sextant.keys.member.MemberCertificate;
import dev.sextant.keys.member.MemberRole;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the holder sends a node after a successful round (docs/re-attestation.md, "Short-lived
 * identities"): a new member certificate for the same key, node name, role and cluster as the one its
 * answer carries, valid from now for {@code sextant.join.member-certificate-validity}. The certificate in
 * the answer is not covered by the quote, so it is renewed only if it is already this CA's statement about
 * this node, in this cluster: the holder extends an identity the CA gave, never makes one up, whatever
 * the answer carries, and only for the role the machine is bound as ({@code bindings/machine/<ak>/role}):
 * the renewal copies the role of the certificate, so a certificate of another role than the binding's is
 * refused rather than extended (the node's own renewal rule would refuse a changed role anyway). A node whose answer carries none (it joined without a discovery key, or its
 * discovery is not running) gets nothing.
 */
final class MemberCertificateRenewer {
    private static final Logger LOG = LoggerFactory.getLogger(MemberCertificateRenewer.class);

    /** A renewal: the encoded certificate to send and what it says. */
    record Renewal(byte[] encoded, MemberCertificate certificate) {
    }

    private final DiscoveryCa ca;
    private final byte[] clusterId;
    private final Duration validity;
    private final Clock clock;

    MemberCertificateRenewer(DiscoveryCa ca, byte[] clusterId, Duration validity, Clock clock) {
        this.ca = ca;
        this.clusterId = clusterId.clone();
        this.validity = validity;
        this.clock = clock;
    }

    /** The renewal for {@code machine}, whose bound AK just passed the round, from the certificate its answer carried. */
    Optional<Renewal> renewalFor(BoundMachine machine, byte[] presented) {
        if (presented.length == 0) {
            return Optional.empty();
        }
        MemberCertificate held;
        try {
            // Whatever its validity: a node that rebooted after its hour presents an expired one, and is renewed.
            held = MemberCertificate.signedBy(presented, ca.publicKey());
        } catch (IllegalArgumentException e) {
            LOG.warn("node {} was attested but presented no certificate of this discovery CA ({}): not renewed", machine.name(),
                    e.getMessage());
            return Optional.empty();
        }
        if (!held.role().equals(boundRole(machine))) {
            // The bindings say what the machine was admitted as; a CA statement of another role is not extended.
            LOG.warn("node {} was attested but presented a {} certificate while it is bound as {}: not renewed", machine.name(),
                    held.role(), machine.role().isEmpty() ? "nothing" : machine.role());
            return Optional.empty();
        }
        if (!held.nodeName().equals(machine.name()) || !held.sameCluster(clusterId)) {
            LOG.warn("node {} was attested but presented the certificate of {}{}: not renewed", machine.name(), held.nodeName(),
                    held.sameCluster(clusterId) ? "" : " in another cluster");
            return Optional.empty();
        }
        byte[] renewed = ca.certifyMember(held.publicKey(), held.nodeName(), held.role(), clusterId, clock.instant(), validity);
        return Optional.of(new Renewal(renewed, MemberCertificate.signedBy(renewed, ca.publicKey())));
    }

    /** The member role of the machine's binding; null for a binding that names neither (never renewed). */
    private static MemberRole boundRole(BoundMachine machine) {
        return switch (machine.role()) {
            case MachineClaim.CONTROL_PLANE -> MemberRole.CONTROL_PLANE;
            case MachineClaim.WORKER -> MemberRole.WORKER;
            default -> null;
        };
    }
}
