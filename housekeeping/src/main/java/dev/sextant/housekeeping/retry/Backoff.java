package dev.sextant.housekeeping.retry;

import java.time.Duration;
import java.util.function.DoubleSupplier;

/**
 * Exponential backoff with full jitter (AWS architecture blog, "Exponential Backoff and Jitter"):
 * wait uniform[0, min(cap, base * 2^attempt)). Many nodes booted together then spread their
 * retries instead of hitting the join service in waves (Constellation retried every 30 s flat).
 */
public final class Backoff {
    private final Duration base;
    private final Duration cap;
    private final DoubleSupplier random;

    /** {@code random} yields values in [0, 1). */
    public Backoff(Duration base, Duration cap, DoubleSupplier random) {
        this.base = base;
        this.cap = cap;
        this.random = random;
    }

    public static Backoff standard() {
        return new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(30),
                () -> java.util.concurrent.ThreadLocalRandom.current().nextDouble());
    }

    /** The ceiling for attempt {@code n} (0-based): base * 2^n, at most cap. */
    public Duration ceiling(int attempt) {
        long millis = base.toMillis() << Math.min(attempt, 30);
        return millis <= 0 || millis > cap.toMillis() ? cap : Duration.ofMillis(millis);
    }

    public Duration delay(int attempt) {
        return Duration.ofMillis((long) (ceiling(attempt).toMillis() * random.getAsDouble()));
    }
}
