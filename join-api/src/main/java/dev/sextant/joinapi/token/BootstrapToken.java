package dev.sextant.joinapi.token;

import java.time.Instant;

/** A bootstrap token as created in the API: {@code <id>.<secret>}, valid until {@code expires}. */
public record BootstrapToken(String id, String secret, Instant expires) {
    public String value() {
        return id + "." + secret;
    }

    public String secretName() {
        return "bootstrap-token-" + id;
    }

    @Override
    public String toString() {
        // The secret half is a credential: never in logs.
        return "BootstrapToken[id=" + id + ", expires=" + expires + "]";
    }
}
