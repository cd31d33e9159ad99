package dev.sextant.nodeboot;

import io.micronaut.runtime.Micronaut;

/** The node bootstrapper: serves attestation (and, later, init and join) on a freshly booted node. */
public final class Application {
    private Application() {}

    public static void main(String[] args) {
        Micronaut.run(Application.class, args);
    }
}
