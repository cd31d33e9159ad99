package dev.sextant.nodeboot.image;

import io.micronaut.context.annotation.Value;
import jakarta.inject.Singleton;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * What the node's own image says it is: {@code IMAGE_VERSION} of its os-release, which
 * {@code sextant image build --image-version} wrote and PCR 11 covers. It is what the node reports
 * of itself (its status line); what it has proved is the version a verifier's measurement set names.
 */
@Singleton
public final class OsRelease {
    static final String IMAGE_VERSION = "IMAGE_VERSION=";

    private final Path file;

    public OsRelease(@Value("${sextant.node.os-release:/usr/lib/os-release}") Path file) {
        this.file = file;
    }

    /** The image's version; empty when os-release names none (an image built before versions, or a test host). */
    public Optional<String> imageVersion() {
        try {
            return Files.readAllLines(file).stream()
                    .filter(line -> line.startsWith(IMAGE_VERSION))
                    .map(line -> unquote(line.substring(IMAGE_VERSION.length()).trim()))
                    .filter(v -> !v.isEmpty())
                    .findFirst();
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    private static String unquote(String value) {
        boolean quoted = value.length() >= 2 && (value.charAt(0) == '"' || value.charAt(0) == '\'')
                && value.charAt(value.length() - 1) == value.charAt(0);
        return quoted ? value.substring(1, value.length() - 1) : value;
    }
}
