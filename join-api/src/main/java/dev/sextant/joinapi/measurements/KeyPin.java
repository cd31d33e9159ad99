package dev.sextant.joinapi.measurements;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The measurement signing key the cluster pinned ({@code measurements/key} in etcd), as one line of text:
 * {@code sha256:<key>} when first pinned (at init), and after a rotation
 * {@code sha256:<key> from sha256:<old key> by-set sha256:<set digest> version <n>}: the set, signed by
 * the old key, that named this one. Fingerprints only, never a key.
 *
 * @param rotation how the pin came to this key, absent for the first pin
 */
public record KeyPin(String key, Optional<Rotation> rotation) {
    private static final String FINGERPRINT = "sha256:[0-9a-f]{64}";
    private static final Pattern TEXT = Pattern.compile("(" + FINGERPRINT + ")(?: from (" + FINGERPRINT + ") by-set ("
            + FINGERPRINT + ") version (0|[1-9][0-9]{0,18}))?");

    /** The set that moved the pin: signed by {@code from} (pinned then), naming the pinned key as its next. */
    public record Rotation(String from, String set, long version) {
    }

    static KeyPin first(String key) {
        return new KeyPin(key, Optional.empty());
    }

    /** The pin after {@code set}, signed by the pinned key, moved it to the key it names. */
    static KeyPin rotatedBy(SetInForce set) {
        return new KeyPin(set.nextKey().orElseThrow(), Optional.of(new Rotation(set.signer(), set.digest(), set.version())));
    }

    /**
     * A set signed by the pinned key; or the very set that moved the pin here, which join services may hold
     * in force until their next set arrives (its bytes are pinned by digest, so its old key can vouch for
     * nothing else).
     */
    boolean admits(SetInForce set) {
        if (set.signer().equals(key)) {
            return true;
        }
        return rotation.isPresent() && rotation.get().from().equals(set.signer()) && rotation.get().set().equals(set.digest())
                && set.nextKey().equals(Optional.of(key));
    }

    String text() {
        return rotation.map(r -> key + " from " + r.from() + " by-set " + r.set() + " version " + r.version()).orElse(key);
    }

    /** @throws IllegalArgumentException the value is not a pin this version writes (the message quotes none of it) */
    static KeyPin parse(String text) {
        Matcher m = TEXT.matcher(text);
        if (!m.matches()) {
            throw new IllegalArgumentException("not a measurement key pin");
        }
        if (m.group(2) == null) {
            return first(m.group(1));
        }
        return new KeyPin(m.group(1), Optional.of(new Rotation(m.group(2), m.group(3), Long.parseLong(m.group(4)))));
    }
}
