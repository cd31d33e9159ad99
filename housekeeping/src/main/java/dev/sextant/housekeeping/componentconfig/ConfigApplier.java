package dev.sextant.housekeeping.componentconfig;

import com.github.difflib.DiffUtils;
import com.github.difflib.UnifiedDiffUtils;
import jakarta.inject.Singleton;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;

/**
 * Puts rendered files in place idempotently: a file whose bytes (and mode) already match is not
 * touched, so re-applying the same configuration writes nothing and restarts nothing. A change is
 * written beside the old file and renamed over it, and logged as a unified diff with secret values
 * redacted.
 */
@Singleton
public final class ConfigApplier {
    private static final Logger LOG = LoggerFactory.getLogger(ConfigApplier.class);
    private static final String PRIVATE = "rw-------";
    private static final String PUBLIC = "rw-r--r--";

    public enum Outcome { UNCHANGED, CREATED, UPDATED }

    public Outcome apply(ConfigFile file) throws IOException {
        Path path = file.path();
        String mode = file.privateFile() ? PRIVATE : PUBLIC;
        String before;
        try {
            before = Files.readString(path, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            before = null;
        }
        boolean modeMatches = before != null
                && PosixFilePermissions.toString(Files.getPosixFilePermissions(path)).equals(mode);
        if (file.content().equals(before) && modeMatches) {
            return Outcome.UNCHANGED;
        }
        Path dir = path.toAbsolutePath().getParent();
        Files.createDirectories(dir);
        // Created 0600 whatever the final mode: a secret is never readable in the temporary file.
        Path tmp = Files.createTempFile(dir, "." + path.getFileName() + ".", ".tmp",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString(PRIVATE)));
        try {
            Files.writeString(tmp, file.content(), StandardCharsets.UTF_8);
            Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString(mode));
            Files.move(tmp, path, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(tmp);
        }
        if (before == null) {
            LOG.info("Configuration: created {} ({} lines)", path, file.content().lines().count());
            return Outcome.CREATED;
        }
        String diff = diff(file, before);
        LOG.info("Configuration: updated {}{}", path, diff.isEmpty() ? " (mode only, now " + mode + ")" : ":\n" + diff);
        return Outcome.UPDATED;
    }

    /** Applies each file; returns the outcomes in order. */
    public List<Outcome> applyAll(List<ConfigFile> files) throws IOException {
        List<Outcome> outcomes = new java.util.ArrayList<>();
        for (ConfigFile f : files) {
            outcomes.add(apply(f));
        }
        return outcomes;
    }

    /** Unified diff of {@code before} to the new content, secrets of either side redacted. */
    static String diff(ConfigFile file, String before) {
        List<String> old = file.redact(before).lines().toList();
        List<String> now = file.redact(file.content()).lines().toList();
        if (old.equals(now)) {
            return "";
        }
        String name = file.path().toString();
        return String.join("\n", UnifiedDiffUtils.generateUnifiedDiff(name, name, old, DiffUtils.diff(old, now), 2));
    }
}
