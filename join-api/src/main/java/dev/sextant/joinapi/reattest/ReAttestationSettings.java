package dev.sextant.joinapi.reattest;

import io.micronaut.context.annotation.ConfigurationProperties;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.core.bind.annotation.Bindable;
import java.time.Duration;
import java.util.Optional;

/**
 * The re-attestation duty's settings, {@code sextant.join.reattest.*} (docs/re-attestation.md).
 *
 * @param enabled       false: this join service never takes the duty (tests of other parts; a service
 *                      that must not re-attest)
 * @param period        how often the holder asks every bound, unrevoked machine
 * @param lease         the duty's lease term: how long the duty outlives a holder that stopped renewing
 *                      (whole seconds, at least 2)
 * @param parallel      how many calls one round has in flight at most
 * @param missedPeriods how many rounds in a row a node may miss before it is revoked ({@code UNREACHABLE});
 *                      until then it is {@code unreachable}. The default (20: ten minutes at the default
 *                      period) outlasts a reboot and an image upgrade's power cycle, which rejoin by
 *                      themselves: revocation is final, so a machine that is merely off must not earn it
 * @param holderName    this service's name as the duty's holder (its node name); absent: the host name
 */
@ConfigurationProperties(ReAttestationSettings.PREFIX)
public record ReAttestationSettings(
        @Bindable(defaultValue = "true") boolean enabled,
        @Bindable(defaultValue = "30s") Duration period,
        @Bindable(defaultValue = "15s") Duration lease,
        @Bindable(defaultValue = "16") int parallel,
        @Bindable(defaultValue = "20") int missedPeriods,
        @Nullable String holderName) {
    public static final String PREFIX = "sextant.join.reattest";

    public ReAttestationSettings {
        if (period == null || period.isNegative() || period.isZero()) {
            throw new IllegalArgumentException(PREFIX + ".period must be positive, got " + period);
        }
        if (lease == null || lease.getNano() != 0 || lease.getSeconds() < 2) {
            throw new IllegalArgumentException(PREFIX + ".lease is whole seconds, at least 2 (etcd's minimum), got " + lease);
        }
        if (parallel < 1 || parallel > 1024) {
            throw new IllegalArgumentException(PREFIX + ".parallel must be between 1 and 1024, got " + parallel);
        }
        if (missedPeriods < 1) {
            throw new IllegalArgumentException(PREFIX + ".missed-periods must be at least 1, got " + missedPeriods);
        }
    }

    /** This service's name as the holder, when set. */
    public Optional<String> holder() {
        return Optional.ofNullable(holderName).filter(n -> !n.isBlank());
    }

    /**
     * A call's deadline: half a period, at most 10 s, so a round over hung nodes still ends within its
     * period when {@code parallel} covers them.
     */
    public Duration callDeadline() {
        Duration half = period.dividedBy(2);
        return half.compareTo(Duration.ofSeconds(10)) > 0 ? Duration.ofSeconds(10) : half;
    }
}
