package dev.sextant.housekeeping.retry;

import java.time.Duration;

/** Waits between join rounds; tests record the waits instead of spending them. */
@FunctionalInterface
public interface Sleeper {
    void sleep(Duration duration) throws InterruptedException;
}
