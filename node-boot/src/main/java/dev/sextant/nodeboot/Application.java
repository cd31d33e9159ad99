package dev.sextant.nodeboot;

import io.micronaut.runtime.Micronaut;

/**
 * The node bootstrapper: serves attestation and init (server-attested aTLS) and, when told where
 * join services are, runs the join path next to it; the node lock lets exactly one of them win.
 */
public final class Application {
    private Application() {}

    public static void main(String[] args) {
        Micronaut.run(Application.class, args);
    }
}
