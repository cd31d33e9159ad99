package dev.sextant.joinapi;

import io.micronaut.context.annotation.Factory;
import jakarta.inject.Singleton;
import java.time.Clock;

/** One clock for token expiry and certificate validity, replaceable in tests. */
@Factory
class ClockFactory {
    @Singleton
    Clock clock() {
        return Clock.systemUTC();
    }
}
