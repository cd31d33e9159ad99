package dev.sextant.housekeeping.componentconfig;

import java.nio.file.Path;
import java.util.Set;

/**
 * One rendered file a component reads, with the values in it that must never reach a log.
 *
 * @param path         where the component reads it
 * @param content      the full rendered text
 * @param secretValues substrings of {@code content} that are secret (tokens, keys); redacted in diffs
 * @param privateFile  0600 instead of 0644
 */
public record ConfigFile(Path path, String content, Set<String> secretValues, boolean privateFile) {
    public ConfigFile {
        secretValues = Set.copyOf(secretValues);
    }

    public static ConfigFile of(Path path, String content, boolean privateFile) {
        return new ConfigFile(path, content, Set.of(), privateFile);
    }

    /** {@code text} with every secret value replaced; what logs and errors may show. */
    String redact(String text) {
        String out = text;
        for (String secret : secretValues) {
            if (!secret.isEmpty()) {
                out = out.replace(secret, "<redacted>");
            }
        }
        return out;
    }

    @Override
    public String toString() {
        return "ConfigFile[" + path + ", " + content.length() + " chars" + (secretValues.isEmpty() ? "" : ", with secrets") + "]";
    }
}
