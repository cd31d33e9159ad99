package dev.sextant.clusterservices.upgrade;

import java.time.Duration;

/** Waits between rollout polls: {@link Thread#sleep} in production, a clock advance in tests. */
@FunctionalInterface
public interface RolloutSleeper {
    RolloutSleeper REAL = d -> Thread.sleep(d.toMillis());

    void sleep(Duration duration) throws InterruptedException;
}
