package dev.sextant.housekeeping.retry;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BackoffTest {
    @Test
    @DisplayName("the ceiling doubles from 1 s and stops at 30 s, even after very many attempts")
    void ceilingDoublesToCap() {
        Backoff b = Backoff.standard();
        assertEquals(Duration.ofSeconds(1), b.ceiling(0));
        assertEquals(Duration.ofSeconds(16), b.ceiling(4));
        assertEquals(Duration.ofSeconds(30), b.ceiling(5));
        assertEquals(Duration.ofSeconds(30), b.ceiling(10_000));
    }

    @Test
    @DisplayName("full jitter: every wait lies in [0, ceiling) and the waits are spread, not one fixed value")
    void fullJitter() {
        Backoff b = Backoff.standard();
        long min = Long.MAX_VALUE;
        long max = 0;
        for (int i = 0; i < 1000; i++) {
            long ms = b.delay(6).toMillis();
            assertTrue(ms >= 0 && ms < 30_000, "wait " + ms);
            min = Math.min(min, ms);
            max = Math.max(max, ms);
        }
        assertTrue(min < 3_000 && max > 27_000, "spread over the range: " + min + ".." + max);
    }
}
