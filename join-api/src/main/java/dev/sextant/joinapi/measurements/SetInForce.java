package dev.sextant.joinapi.measurements;

import java.util.Objects;
import java.util.Optional;

/**
 * The facts about the measurement set in force that the cluster store judges: its version (against the
 * floor), the fingerprint of the key that verified its signature and of the next key it names (against the
 * pinned key), and the digest of its bytes (a rotation record names the set that moved the pin). All
 * {@code sha256:<hex>}; no key material.
 *
 * @param handedOverBy the set this service held in force before, signed by the key then in use and naming
 *                     this set's signer as the next key, when this set is signed by that next key: the
 *                     rotation this set relies on, admitted first where no join service admitted it yet
 *                     (the operator applied the next key's set before any ticket was issued under the
 *                     rotating one). A service restarted since has forgotten it.
 */
public record SetInForce(long version, String signer, Optional<String> nextKey, String digest, Optional<SetInForce> handedOverBy) {
    public SetInForce {
        Objects.requireNonNull(signer, "signer");
        Objects.requireNonNull(nextKey, "nextKey");
        Objects.requireNonNull(digest, "digest");
        Objects.requireNonNull(handedOverBy, "handedOverBy");
    }

    public SetInForce(long version, String signer, Optional<String> nextKey, String digest) {
        this(version, signer, nextKey, digest, Optional.empty());
    }

    /** Names a next key other than its own signer: admitted while its signer is pinned, it moves the pin. */
    public boolean rotates() {
        return nextKey.isPresent() && !nextKey.get().equals(signer);
    }

    /**
     * This set as it comes into force after {@code previous}: it keeps the rotation that hands the key over
     * to its signer, whether {@code previous} is that rotation or relied on it too.
     */
    SetInForce after(SetInForce previous) {
        Optional<SetInForce> rotation = Optional.empty();
        if (previous.rotates() && previous.nextKey().get().equals(signer)) {
            rotation = Optional.of(previous.withoutHandover());
        } else if (previous.signer().equals(signer)) {
            rotation = previous.handedOverBy();
        }
        return new SetInForce(version, signer, nextKey, digest, rotation);
    }

    private SetInForce withoutHandover() {
        return new SetInForce(version, signer, nextKey, digest);
    }
}
