package dev.sextant.diskcrypt;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The node's LUKS2 state disk, driven through cryptsetup. Every change works on a detached copy
 * of the header that was validated first, and is then written back whole: the node never hands a
 * secret to a header the host may have planted (GHSA-hq76-6gh2-5g4q), and a header swapped on
 * the device after validation is simply overwritten. Calls are serialised: init and join may both
 * reach the disk, and one cryptsetup run at a time keeps each header copy consistent.
 *
 * <p>Sextant's token (LUKS2 token 0) carries the "initialized" marker and the {@link KeyCheckValue}
 * of the key in key slot 0. The check value lives in the header's JSON area rather than in a file
 * beside the disk because it must change with the key: every key change writes both into the same
 * header copy, which goes back to the device in one restore, so they never disagree; and it is
 * read through the same validated header copy as everything else.
 */
@Singleton
public final class StateDisk implements DiskReset {
    static final int PASSPHRASE_BYTES = 32;

    private final StateDiskSettings settings;
    private final StateMount mount;
    private final CommandRunner runner;
    private final LuksHeaderValidator validator = new LuksHeaderValidator();
    private final ObjectMapper json = new ObjectMapper();
    /** This boot's disk was fresh: formatted by this process, or by an earlier one of this boot (the key file is on tmpfs). */
    private volatile boolean formattedThisBoot;

    @Inject
    public StateDisk(StateDiskSettings settings, StateMount mount, CommandRunner runner) {
        this.settings = settings;
        this.mount = mount;
        this.runner = runner;
    }

    public StateDisk(StateDiskSettings settings, CommandRunner runner) {
        this(settings, StateMount.defaults(), runner);
    }

    /** Formats the device with a random passphrase, marked not initialized; returns the passphrase. */
    public synchronized byte[] formatWithRandomPassphrase() throws DiskCryptException, InterruptedException {
        byte[] passphrase = new byte[PASSPHRASE_BYTES];
        new SecureRandom().nextBytes(passphrase);
        List<String> argv = new ArrayList<>(List.of("cryptsetup", "luksFormat", "--batch-mode", "--type", "luks2",
                "--cipher", LuksHeaderValidator.CIPHER, "--key-size", "512", "--sector-size", "4096",
                "--hash", "sha256"));
        argv.addAll(settings.pbkdfArgs());
        argv.addAll(List.of("--key-file", "-", settings.device().toString()));
        run(argv, passphrase, "formatting " + settings.device());
        formattedThisBoot = true;
        withValidatedHeader((header, metadata) -> writeToken(header, false,
                KeyCheckValue.of(passphrase, uuidOf(header)).encoded()), true);
        return passphrase;
    }

    /**
     * The boot-time passphrase of key slot 0: the one left in the key file at boot or, on a blank
     * disk (no initramfs disk-mapper prepared it), that of a fresh format, kept 0400 in the key file.
     * A disk already initialized by an earlier membership is never reformatted here.
     */
    public synchronized byte[] bootPassphrase() throws DiskCryptException, InterruptedException {
        Path keyFile = settings.keyFile();
        try {
            if (Files.exists(keyFile)) {
                formattedThisBoot = true;
                return Files.readAllBytes(keyFile);
            }
            if (holdsInitializedCluster()) {
                throw new DiskCryptException("state disk " + settings.device() + " holds an initialized cluster disk;"
                        + " it opens only with its cluster key (rejoin or recovery), never with a boot key");
            }
            byte[] passphrase = formatWithRandomPassphrase();
            Files.createDirectories(keyFile.toAbsolutePath().getParent());
            SecretFiles.write(keyFile, passphrase);
            Files.setPosixFilePermissions(keyFile, java.nio.file.attribute.PosixFilePermissions.fromString("r--------"));
            return passphrase;
        } catch (IOException e) {
            throw new DiskCryptException("boot key " + keyFile + ": " + e.getMessage(), e);
        }
    }

    /**
     * Prepares the disk for a first membership and names it: formats a blank disk with a boot
     * passphrase (kept in the key file for this boot, so a second call formats nothing), then
     * returns its UUID, which init and join need before the lock (keys are per UUID). Empty when
     * there is no state disk (development node).
     */
    public synchronized String prepareFresh() throws DiskCryptException, InterruptedException {
        if (!Files.exists(settings.device())) {
            return "";
        }
        bootPassphrase();
        return uuid();
    }

    /** True when the device exists, is LUKS2 and its token says a cluster key protects it: unlock at boot, never format. */
    public synchronized boolean holdsInitializedCluster() throws DiskCryptException, InterruptedException {
        return Files.exists(settings.device()) && isLuks2() && isInitialized();
    }

    /** True when this boot started from a fresh disk: only then may a failure mark it for reset. */
    public boolean formattedThisBoot() {
        return formattedThisBoot;
    }

    private boolean isLuks2() throws DiskCryptException, InterruptedException {
        try {
            return runner.run(List.of("cryptsetup", "isLuks", "--type", "luks2", settings.device().toString()),
                    new byte[0]).ok();
        } catch (IOException e) {
            throw new DiskCryptException("cannot run cryptsetup: " + e.getMessage(), e);
        }
    }

    /** The LUKS UUID in lower case, read from a validated header copy. */
    public synchronized String uuid() throws DiskCryptException, InterruptedException {
        String[] uuid = new String[1];
        withValidatedHeader((header, metadata) -> uuid[0] = uuidOf(header));
        return uuid[0];
    }

    /**
     * The check value of the key in key slot 0, read from a validated header copy; empty for a disk
     * formatted before check values were written (its key is then tested by cryptsetup alone).
     */
    public synchronized Optional<KeyCheckValue> keyCheckValue() throws DiskCryptException, InterruptedException {
        KeyCheckValue[] check = new KeyCheckValue[1];
        withValidatedHeader((header, metadata) -> {
            String encoded = checkValueOf(metadata);
            check[0] = encoded == null ? null : KeyCheckValue.decode(uuidOf(header), encoded);
        });
        return Optional.ofNullable(check[0]);
    }

    /** True when the Sextant token says a cluster key protects the disk. */
    public synchronized boolean isInitialized() throws DiskCryptException, InterruptedException {
        boolean[] initialized = new boolean[1];
        withValidatedHeader((header, metadata) -> initialized[0] = initializedOf(metadata));
        return initialized[0];
    }

    /** Replaces the boot-time passphrase in key slot 0 with the cluster-derived key and marks the disk initialized. */
    public synchronized void rekey(byte[] oldPassphrase, byte[] newKey) throws DiskCryptException, InterruptedException {
        changeKey(oldPassphrase, newKey);
        markInitialized();
    }

    /** Marks the disk initialized: from now on every boot unlocks it with its cluster key. */
    public synchronized void markInitialized() throws DiskCryptException, InterruptedException {
        withValidatedHeader((header, metadata) -> writeToken(header, true, checkValueOf(metadata)), true);
    }

    /**
     * Tries {@code key} against key slot 0 of the validated header copy without mapping anything
     * ({@code --test-passphrase}): a wrong key is refused here and the disk is left untouched.
     */
    public synchronized boolean opensWith(byte[] key) throws DiskCryptException, InterruptedException {
        boolean[] opens = new boolean[1];
        withValidatedHeader((header, metadata) -> opens[0] = runner.run(List.of("cryptsetup", "open", "--test-passphrase", "--type",
                "luks2", "--key-slot", "0", "--header", header.toString(), "--key-file", "-", settings.device().toString()),
                key).ok());
        return opens[0];
    }

    /**
     * Replaces the boot-time passphrase in key slot 0 with the cluster-derived key, and its check
     * value with the new key's in the same header write; the marker is left as it is.
     */
    public synchronized void changeKey(byte[] oldPassphrase, byte[] newKey) throws DiskCryptException, InterruptedException {
        withValidatedHeader((header, metadata) -> {
            Path newKeyFile = SecretFiles.write(header.resolveSibling("new.key"), newKey);
            try {
                List<String> argv = new ArrayList<>(List.of("cryptsetup", "luksChangeKey", "--batch-mode",
                        "--key-slot", "0"));
                argv.addAll(settings.pbkdfArgs());
                argv.addAll(List.of("--key-file", "-", header.toString(), newKeyFile.toString()));
                run(argv, oldPassphrase, "changing the state disk key");
            } finally {
                SecretFiles.wipe(newKeyFile);
            }
            writeToken(header, initializedOf(metadata), KeyCheckValue.of(newKey, uuidOf(header)).encoded());
        }, true);
    }

    /**
     * Opens the disk with the cluster-derived key and mounts it, making an ext4 file system on first
     * use. The mapping is made with the validated header copy ({@code --header}), so a header
     * swapped on the device after validation never sees the key.
     */
    public synchronized String openAndMount(byte[] key) throws DiskCryptException, InterruptedException {
        if (!mount.enabled()) {
            return "not opened (sextant.state-disk.mount.enabled=false)";
        }
        String mapped = "/dev/mapper/" + mount.mapperName();
        withValidatedHeader((header, metadata) -> run(List.of("cryptsetup", "open", "--type", "luks2", "--header", header.toString(),
                "--key-file", "-", settings.device().toString(), mount.mapperName()), key, "opening the state disk"));
        boolean fresh;
        try {
            // blkid -p exits 2 when it finds no file system: a first boot of this disk.
            fresh = runner.run(List.of("blkid", "-p", "-o", "value", "-s", "TYPE", mapped), new byte[0]).stdout().isBlank();
            Files.createDirectories(mount.mountPoint());
        } catch (IOException e) {
            throw new DiskCryptException("probing " + mapped + ": " + e.getMessage(), e);
        }
        if (fresh) {
            run(List.of("mkfs.ext4", "-q", "-L", mount.mapperName(), mapped), new byte[0], "making the state file system");
        }
        run(List.of("mount", "-o", "nosuid,nodev", mapped, mount.mountPoint().toString()), new byte[0],
                "mounting the state disk");
        return (fresh ? "new ext4 on " : "") + mapped + " mounted at " + mount.mountPoint();
    }

    /**
     * Clears the "initialized" marker so the next boot reformats instead of waiting for a key
     * forever, but only for a disk this boot formatted: a member that failed after a reboot keeps
     * its data and unlocks again at the next boot.
     */
    @Override
    public synchronized void markForReset() throws DiskCryptException, InterruptedException {
        if (!formattedThisBoot) {
            throw new DiskCryptException("state disk " + settings.device() + " kept: this boot did not format it"
                    + " (a member's data survives a failed boot)");
        }
        withValidatedHeader((header, metadata) -> writeToken(header, false, checkValueOf(metadata)), true);
    }

    /** One step on a validated header copy; {@code metadata} is its JSON as validated. */
    @FunctionalInterface
    private interface HeaderStep {
        void apply(Path header, JsonNode metadata) throws DiskCryptException, InterruptedException, IOException;
    }

    /** Reads through a validated header copy; nothing is written back. */
    private void withValidatedHeader(HeaderStep step) throws DiskCryptException, InterruptedException {
        withValidatedHeader(step, false);
    }

    /** Validates a detached copy, applies {@code step} to it, re-validates and (if {@code writeBack}) restores it. */
    private void withValidatedHeader(HeaderStep step, boolean writeBack) throws DiskCryptException, InterruptedException {
        Path dir = null;
        try {
            dir = SecretFiles.privateDirectory(settings.workDir());
            Path header = dir.resolve("header");
            run(List.of("cryptsetup", "luksHeaderBackup", "--batch-mode", settings.device().toString(),
                    "--header-backup-file", header.toString()), new byte[0], "copying the LUKS header");
            String metadata = dump(header);
            validator.validate(metadata);
            step.apply(header, json.readTree(metadata));
            if (writeBack) {
                validator.validate(dump(header));
                run(List.of("cryptsetup", "luksHeaderRestore", "--batch-mode", settings.device().toString(),
                        "--header-backup-file", header.toString()), new byte[0], "writing the LUKS header back");
            }
        } catch (IOException e) {
            throw new DiskCryptException("state disk " + settings.device() + ": " + e.getMessage(), e);
        } finally {
            SecretFiles.deleteTree(dir);
        }
    }

    private String dump(Path header) throws DiskCryptException, InterruptedException {
        return run(List.of("cryptsetup", "luksDump", "--dump-json-metadata", header.toString()), new byte[0],
                "reading the LUKS header").stdout();
    }

    private String uuidOf(Path header) throws DiskCryptException, InterruptedException {
        return run(List.of("cryptsetup", "luksUUID", header.toString()), new byte[0], "reading the LUKS UUID")
                .stdout().trim().toLowerCase(Locale.ROOT);
    }

    private static boolean initializedOf(JsonNode metadata) {
        return metadata.path("tokens").path("0").path("initialized").asBoolean(false);
    }

    /** The token's check value as stored (base64), null when the disk has none. */
    private static String checkValueOf(JsonNode metadata) {
        JsonNode value = metadata.path("tokens").path("0").path(LuksHeaderValidator.CHECK_VALUE);
        return value.isTextual() ? value.asText() : null;
    }

    /** Replaces Sextant's token; {@code checkValue} null writes none (a disk that never had one keeps having none). */
    private void writeToken(Path header, boolean initialized, String checkValue)
            throws DiskCryptException, InterruptedException {
        ObjectNode token = json.createObjectNode().put("type", LuksHeaderValidator.TOKEN_TYPE);
        token.putArray("keyslots");
        token.put("initialized", initialized);
        if (checkValue != null) {
            token.put(LuksHeaderValidator.CHECK_VALUE, checkValue);
        }
        run(List.of("cryptsetup", "token", "import", "--token-id", "0", "--token-replace", "--json-file", "-",
                header.toString()), token.toString().getBytes(StandardCharsets.UTF_8), "writing Sextant's token");
    }

    private CommandRunner.Result run(List<String> argv, byte[] stdin, String what)
            throws DiskCryptException, InterruptedException {
        CommandRunner.Result result;
        try {
            result = runner.run(argv, stdin);
        } catch (IOException e) {
            throw new DiskCryptException(what + ": cannot run " + argv.get(0) + ": " + e.getMessage(), e);
        }
        if (!result.ok()) {
            throw new DiskCryptException(what + ": " + argv.get(0) + " exited with " + result.exitCode() + ": "
                    + result.stderr().strip());
        }
        return result;
    }
}
