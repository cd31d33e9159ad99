package dev.sextant.measuredboot.testing;

import java.io.IOException;
import java.io.InputStream;

/** The committed seeds of a fuzz target, where jazzer-junit reads them: {@code <Class>Inputs/<method>/}. */
public final class FuzzCorpus {
    private FuzzCorpus() {
    }

    public static byte[] seed(Class<?> fuzzTest, String method, String name) throws IOException {
        try (InputStream in = fuzzTest.getResourceAsStream(fuzzTest.getSimpleName() + "Inputs/" + method + "/" + name)) {
            if (in == null) {
                throw new AssertionError("no committed seed " + name + " for " + fuzzTest.getSimpleName() + "#" + method
                        + " (scripts/fuzz.sh --seeds)");
            }
            return in.readAllBytes();
        }
    }
}
