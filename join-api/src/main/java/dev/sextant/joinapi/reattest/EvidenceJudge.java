package dev.sextant.joinapi.reattest;

import dev.sextant.attestation.verify.Reason;
import java.security.MessageDigest;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.function.Function;

/**
 * Judges one node's evidence against its binding. Only evidence signed by the node's own bound AK over
 * this round's nonce can fail the node: anything else the host could produce (it owns the network and can
 * point an endpoint anywhere, replay old answers or send garbage) counts as a missed round, which revokes
 * only after {@code missed-periods} of them, as silence would. The exception is the contract's
 * {@code AK_MISMATCH}: evidence that passes every check of this cluster (an admitted image, this
 * cluster's PCR 15, an AK of the EK CA) from an AK bound to no node. Only the genuine image marks PCR 15
 * with the cluster ID, and only after a ticket bound its AK, so an unbound machine carrying the mark holds
 * this node's identity (its disk) on a second machine.
 */
final class EvidenceJudge {
    private final Function<String, Optional<String>> nodeBoundToAk;

    /** @param nodeBoundToAk the node name an AK (hex) is bound to ({@code bindings/machine/<ak>/node}), if any */
    EvidenceJudge(Function<String, Optional<String>> nodeBoundToAk) {
        this.nodeBoundToAk = nodeBoundToAk;
    }

    NodeOutcome judge(BoundMachine machine, Evidence evidence) {
        if (evidence instanceof Evidence.NoAnswer none) {
            return new NodeOutcome.Missed(none.why());
        }
        if (evidence instanceof Evidence.Verified verified) {
            if (sameAk(verified.ak(), machine.boundAk())) {
                return new NodeOutcome.Attested(verified.imageVersion());
            }
            return otherAk(machine, verified.ak(), true);
        }
        Evidence.Rejected rejected = (Evidence.Rejected) evidence;
        Reason reason = rejected.rejection().reason();
        if (rejected.signer().isEmpty()) {
            // Malformed, stale, unsigned, relayed, or from an AK the EK CA does not vouch for: not the node's word.
            return new NodeOutcome.Missed("its answer was refused (" + reason + "): " + rejected.rejection().getMessage());
        }
        String signer = rejected.signer().get();
        if (!sameAk(signer, machine.boundAk())) {
            return otherAk(machine, signer, false);
        }
        return switch (reason) {
            case IMAGE_RETIRED -> new NodeOutcome.Failed(RevocationReason.IMAGE_RETIRED, rejected.rejection().getMessage());
            case PCR_MISMATCH -> new NodeOutcome.Failed(RevocationReason.PCR_MISMATCH, rejected.rejection().getMessage());
            default -> new NodeOutcome.Missed("its answer was refused (" + reason + "): " + rejected.rejection().getMessage());
        };
    }

    /** An answer from another AK than the bound one: misdirected (another node's), or the identity on a second machine. */
    private NodeOutcome otherAk(BoundMachine machine, String ak, boolean validForCluster) {
        Optional<String> owner = nodeBoundToAk.apply(ak);
        if (owner.isPresent()) {
            return new NodeOutcome.Missed("its endpoint " + machine.endpoint() + " answered with the AK bound to node "
                    + owner.get() + " (a misdirected endpoint)");
        }
        if (validForCluster) {
            return new NodeOutcome.Failed(RevocationReason.AK_MISMATCH, "its endpoint " + machine.endpoint()
                    + " answered with valid evidence of this cluster from AK " + shortAk(ak)
                    + ", which is bound to no node, rather than its bound AK " + shortAk(machine.boundAk()));
        }
        return new NodeOutcome.Missed("its endpoint " + machine.endpoint() + " answered with the refused evidence of an unbound AK "
                + shortAk(ak));
    }

    /** AK names are public identities; the first bytes name one in a sentence. */
    static String shortAk(String ak) {
        return ak.length() > 16 ? ak.substring(0, 16) + "…" : ak;
    }

    private static boolean sameAk(String a, String b) {
        return MessageDigest.isEqual(a.getBytes(StandardCharsets.US_ASCII), b.getBytes(StandardCharsets.US_ASCII));
    }
}
