package dev.sextant.joinapi.binding;

import dev.sextant.joinapi.Hex;
import dev.sextant.joinapi.Refusal;
import io.micronaut.context.annotation.Requires;
import io.micronaut.context.annotation.Value;
import jakarta.inject.Singleton;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Optional;

/**
 * Bindings as files {@code <dir>/<disk|node>-<subject>} holding the owner's AK name in hex, for a
 * control plane without Kubernetes (one join service per node). A claim is a hard link from a
 * fully written temporary file: {@code link(2)} fails atomically when the name exists, so two
 * concurrent claims cannot both win and no reader ever sees a half-written binding.
 */
@Singleton
@Requires(property = "sextant.join.kubernetes.enabled", value = "false")
public class FileBindingStore implements BindingStore {
    private final Path dir;

    public FileBindingStore(@Value("${sextant.join.records-dir:/var/lib/sextant/join-records}") Path dir) {
        this.dir = dir;
    }

    @Override
    public boolean claim(Kind kind, String subject, byte[] akName) throws Refusal {
        Path target = file(kind, subject);
        try {
            Files.createDirectories(dir);
            Path temp = Files.createTempFile(dir, ".claim-", ".tmp");
            try {
                Files.writeString(temp, HexFormat.of().formatHex(akName));
                Files.createLink(target, temp);
                return true;
            } catch (FileAlreadyExistsException taken) {
                return owner(kind, subject).map(owner -> Hex.same(owner, akName)).orElse(false);
            } finally {
                Files.deleteIfExists(temp);
            }
        } catch (IOException e) {
            throw new Refusal(Refusal.Reason.INTERNAL, "cannot write binding " + target + ": " + e.getMessage(), e);
        }
    }

    @Override
    public Optional<byte[]> owner(Kind kind, String subject) throws Refusal {
        Path file = file(kind, subject);
        try {
            return Optional.of(HexFormat.of().parseHex(Files.readString(file, StandardCharsets.US_ASCII).strip()));
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException | IllegalArgumentException e) {
            throw new Refusal(Refusal.Reason.INTERNAL, "binding " + file + " is unreadable: " + e.getMessage(), e);
        }
    }

    // Subjects were checked by InputChecks (UUID, RFC 1123 name): no separators can reach the path.
    private Path file(Kind kind, String subject) {
        return dir.resolve(kind.name().toLowerCase(Locale.ROOT) + "-" + subject);
    }
}
