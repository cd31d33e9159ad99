package dev.sextant.joinapi.nodestate;

import java.util.Objects;
import java.util.Optional;

/**
 * A node's attestation record as a round read it, with the revision {@code nodes/<name>/attestation} was last
 * modified at (0: absent). A round's result that is computed from the record is written only while the key is
 * still at that revision ({@link NodeStateStore#recordAttestation(String, String, AttestationRecord,
 * dev.sextant.etcd.client.Fence, long)}): a join or rejoin that wrote the record during the round wins.
 */
public record VersionedAttestation(Optional<AttestationRecord> record, long modRevision) {
    /** A node no round and no ticket has written a record for. */
    public static final VersionedAttestation ABSENT = new VersionedAttestation(Optional.empty(), 0);

    public VersionedAttestation {
        Objects.requireNonNull(record, "record");
        if (modRevision < 0 || record.isEmpty() != (modRevision == 0)) {
            throw new IllegalArgumentException("a record has a revision above 0 and only an absent one has 0, got " + modRevision);
        }
    }
}
