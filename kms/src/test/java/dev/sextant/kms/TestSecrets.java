package dev.sextant.kms;

import dev.sextant.grpcsupport.unix.ProcessUid;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.Map;
import java.util.stream.Stream;

/** A master secret and salt written to a temp directory, as a Kubernetes Secret mount would present them. */
public final class TestSecrets implements AutoCloseable {

    /** The golden-vector inputs (also used by the openssl peer test). */
    static final byte[] SECRET = HexFormat.of().parseHex(
            "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f");
    static final byte[] SALT = HexFormat.of().parseHex(
            "a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf");

    final Path dir;
    final Path secretFile;
    final Path saltFile;

    private TestSecrets(Path dir, byte[] secret, byte[] salt) throws IOException {
        this.dir = dir;
        this.secretFile = Files.write(dir.resolve("mastersecret"), secret);
        this.saltFile = Files.write(dir.resolve("salt"), salt);
    }

    static TestSecrets write(byte[] secret, byte[] salt) {
        try {
            return new TestSecrets(Files.createTempDirectory("sextant-kms-test"), secret, salt);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static TestSecrets golden() {
        return write(SECRET, SALT);
    }

    /**
     * The files, and a socket in a directory the KMS makes beside them, answering this test's own uid (the
     * test plays the join service).
     */
    public Map<String, String> properties() {
        return Map.of("sextant.kms.master-secret-file", secretFile.toString(),
                "sextant.kms.salt-file", saltFile.toString(),
                "sextant.kms.socket", socket().toString(),
                "sextant.kms.peer-uids", Integer.toString(ProcessUid.current()));
    }

    /** Where the KMS of these properties serves. */
    public Path socket() {
        return dir.resolve("socket").resolve("kms.sock");
    }

    /** The directory these files are in. */
    public Path dir() {
        return dir;
    }

    /** The same properties, typed for {@code ApplicationContext.run}. */
    Map<String, Object> contextProperties() {
        return Map.copyOf(properties());
    }

    @Override
    public void close() {
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
