package dev.sextant.diskcrypt;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A LUKS2 state disk as cryptsetup would show it, for tests (the host has no device-mapper): a
 * validated header whose token is the one last imported (the "initialized" marker and the key's
 * check value), key slot 0's passphrase, and whether the disk is mapped. It survives a "reboot" (a new StateDisk over the same FakeLuks).
 */
public final class FakeLuks implements CommandRunner {
    public static final String UUID = "c3833f4f-fab2-41c3-aae8-d8d0f1dc9ee4";

    private final ObjectMapper json = new ObjectMapper();
    private final List<String> commands = new ArrayList<>();
    private boolean formatted;
    /** Token 0 as last imported; null: the token of the fixture, not initialized. */
    private ObjectNode token;
    private byte[] slot0;
    private boolean mapped;

    /** A blank device (no LUKS header yet). */
    public FakeLuks() {
    }

    public synchronized List<String> commands() {
        return List.copyOf(commands);
    }

    public synchronized boolean initialized() {
        return token != null && token.path("initialized").asBoolean();
    }

    public synchronized boolean mapped() {
        return mapped;
    }

    public synchronized boolean opensWith(byte[] key) {
        return slot0 != null && Arrays.equals(slot0, key);
    }

    /** Makes this a disk formatted before check values were written: its token keeps only the marker. */
    public synchronized void dropCheckValue() {
        if (token != null) {
            token.remove("check_value");
        }
    }

    /** Power off: the mapping is gone, the header and key slot stay. */
    public synchronized void powerCycle() {
        mapped = false;
        commands.clear();
    }

    @Override
    public synchronized Result run(List<String> argv, byte[] stdin) throws IOException {
        String verb = argv.get(0).equals("cryptsetup") ? argv.get(1) : argv.get(0);
        commands.add(verb + (argv.contains("--test-passphrase") ? " --test-passphrase" : ""));
        switch (verb) {
            case "luksFormat" -> {
                formatted = true;
                token = null;
                slot0 = stdin.clone();
                mapped = false;
            }
            case "isLuks" -> {
                return new Result(formatted ? 0 : 1, "", "");
            }
            case "luksHeaderBackup" -> {
                if (!formatted) {
                    return new Result(1, "", "Device is not a valid LUKS device.");
                }
                Files.writeString(Path.of(argv.get(argv.size() - 1)), "header copy");
            }
            case "luksDump" -> {
                return new Result(0, header(), "");
            }
            case "luksUUID" -> {
                return new Result(0, UUID.toUpperCase() + "\n", "");
            }
            case "luksChangeKey" -> {
                if (!Arrays.equals(slot0, stdin)) {
                    return new Result(2, "", "No key available with this passphrase.");
                }
                slot0 = Files.readAllBytes(Path.of(argv.get(argv.size() - 1)));
            }
            case "token" -> token = (ObjectNode) json.readTree(new String(stdin, StandardCharsets.UTF_8));
            case "open" -> {
                if (!Arrays.equals(slot0, stdin)) {
                    return new Result(2, "", "No key available with this passphrase.");
                }
                if (!argv.contains("--test-passphrase")) {
                    mapped = true;
                }
            }
            case "blkid" -> {
                return new Result(0, "ext4\n", "");
            }
            default -> {
                // luksHeaderRestore, mkfs.ext4, mount: nothing to model.
            }
        }
        return new Result(0, "", "");
    }

    private String header() throws IOException {
        ObjectNode root = (ObjectNode) json.readTree(LuksHeaderValidatorTest.fixture());
        if (token == null) {
            ((ObjectNode) root.with("tokens").with("0")).put("initialized", false);
        } else {
            root.with("tokens").set("0", token);
        }
        return root.toString();
    }
}
