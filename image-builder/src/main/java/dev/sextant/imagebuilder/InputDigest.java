package dev.sextant.imagebuilder;

import dev.sextant.attestation.digest.Sha256;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;

/**
 * SHA-256 over everything a build reads from this machine: the mkosi configuration, the staged
 * node tree, the apt sources and the mkosi command line. When it equals the digest stored beside
 * a complete output, the image is reused without running mkosi (its package set is pinned by the
 * cache, so "same inputs" here means "same image"); {@code --force} rebuilds regardless.
 */
public final class InputDigest {
    static final String FILE = ".sextant-inputs.sha256";

    private InputDigest() {}

    public static String of(List<Path> trees, List<String> strings) throws BuildException {
        MessageDigest sha256 = Sha256.newDigest();
        try {
            for (Path tree : trees) {
                hashTree(sha256, tree);
            }
        } catch (IOException e) {
            throw new BuildException("cannot read the build inputs: " + e.getMessage(), e);
        }
        for (String s : strings) {
            update(sha256, "arg", s);
        }
        return HexFormat.of().formatHex(sha256.digest());
    }

    /** The digest stored in {@code outDir} by the last complete build, or "" if none. */
    public static String stored(Path outDir) {
        try {
            Path file = outDir.resolve(FILE);
            return Files.isReadable(file) ? Files.readString(file).trim() : "";
        } catch (IOException e) {
            return "";
        }
    }

    public static void store(Path outDir, String digest) throws BuildException {
        try {
            Files.writeString(outDir.resolve(FILE), digest + "\n");
        } catch (IOException e) {
            throw new BuildException("cannot write " + outDir.resolve(FILE) + ": " + e.getMessage(), e);
        }
    }

    private static void hashTree(MessageDigest sha256, Path tree) throws IOException {
        try (var walk = Files.walk(tree)) {
            for (Path p : walk.sorted().toList()) {
                String relative = tree.relativize(p).toString();
                if (Files.isSymbolicLink(p)) {
                    update(sha256, "link " + relative, Files.readSymbolicLink(p).toString());
                } else if (Files.isRegularFile(p)) {
                    update(sha256, "file " + relative + (Files.isExecutable(p) ? " x" : ""), "");
                    sha256.update(Files.readAllBytes(p));
                } else {
                    update(sha256, "dir", relative);
                }
            }
        }
    }

    // Length-prefixed, so no two different input lists hash the same byte stream.
    private static void update(MessageDigest sha256, String kind, String value) {
        for (String s : new String[] {kind, value}) {
            byte[] b = s.getBytes(StandardCharsets.UTF_8);
            sha256.update(java.nio.ByteBuffer.allocate(4).putInt(b.length).array());
            sha256.update(b);
        }
    }
}
