package dev.sextant.joinapi.binding;

import dev.sextant.grpcsupport.Refusal;
import dev.sextant.joinapi.refusal.JoinRefusal;
import dev.sextant.serviceconfig.JoinServiceConfig;
import io.micronaut.context.annotation.Requires;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Bindings as files {@code <dir>/<kind>-<key>} holding the bound value, for a control plane without
 * Kubernetes (one join service per node). A bind is a hard link from a fully written temporary
 * file: {@code link(2)} fails atomically when the name exists, so two concurrent binds cannot both
 * win and no reader ever sees a half-written binding.
 */
@Singleton
@Requires(property = JoinServiceConfig.KUBERNETES_ENABLED, value = "false")
public class FileBindingStore implements BindingStore {
    private final Path dir;

    @Inject
    public FileBindingStore(JoinServiceConfig config) {
        this(config.recordsDir());
    }

    public FileBindingStore(Path dir) {
        this.dir = dir;
    }

    @Override
    public String bind(Kind kind, String key, String value) throws Refusal {
        Path target = file(kind, key);
        try {
            Files.createDirectories(dir);
            Path temp = Files.createTempFile(dir, ".claim-", ".tmp");
            try {
                Files.writeString(temp, value, StandardCharsets.US_ASCII);
                Files.createLink(target, temp);
                return value;
            } catch (FileAlreadyExistsException taken) {
                return lookup(kind, key).orElseThrow(() ->
                        new Refusal(JoinRefusal.INTERNAL, "a " + kind.label() + " binding vanished while it was read; retry"));
            } finally {
                Files.deleteIfExists(temp);
            }
        } catch (IOException e) {
            // The path and the OS error go to the log (the cause), not to the caller.
            throw new Refusal(JoinRefusal.INTERNAL, "the join service cannot write its " + kind.label() + " binding", e);
        }
    }

    @Override
    public Optional<String> lookup(Kind kind, String key) throws Refusal {
        Path file = file(kind, key);
        try {
            String value = Files.readString(file, StandardCharsets.US_ASCII).strip();
            if (value.isEmpty()) {
                throw new IOException(file + " is empty");
            }
            return Optional.of(value);
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException e) {
            throw new Refusal(JoinRefusal.INTERNAL, "the join service cannot read its " + kind.label() + " binding", e);
        }
    }

    // Keys were checked (UUID, RFC 1123 name, hex AK name): no separator can reach the path.
    private Path file(Kind kind, String key) {
        return dir.resolve(kind.label() + "-" + key);
    }
}
