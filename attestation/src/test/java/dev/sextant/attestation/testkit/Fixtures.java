package dev.sextant.attestation.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/** Reads the captured swtpm artefacts under src/test/resources/fixtures/swtpm (see capture.sh there). */
public final class Fixtures {
    private Fixtures() {}

    public static byte[] swtpm(String name) {
        try (InputStream in = Fixtures.class.getResourceAsStream("/fixtures/swtpm/" + name)) {
            if (in == null) {
                throw new IllegalStateException("missing fixture fixtures/swtpm/" + name);
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
