package dev.sextant.housekeeping.discovery;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The discovery block of a hosts file. Lines between the guards are ours and replaced whole;
 * everything else is kept byte for byte. The new file is written beside the old one and renamed
 * over it, so a reader sees either version, never half of one (kops wrote in place and re-read to
 * detect torn writes, because its /etc/hosts could be a container bind mount; on a node it is a
 * plain file, and a symlinked one is followed to its target).
 */
public final class HostsFile {
    static final String BEGIN = "# Begin host entries managed by sextant discovery - do not edit";
    static final String END = "# End host entries managed by sextant discovery";

    private final Path path;

    public HostsFile(Path path) {
        this.path = path;
    }

    /** Writes the block for {@code names}; returns false (and writes nothing) when the file already says so. */
    public synchronized boolean update(SortedMap<String, SortedSet<String>> names) throws IOException {
        Path target = Files.isSymbolicLink(path) ? path.toRealPath() : path;
        String existing;
        try {
            existing = Files.readString(target, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            existing = "";
        }
        String wanted = render(existing, names);
        if (wanted.equals(existing)) {
            return false;
        }
        Path dir = target.toAbsolutePath().getParent();
        Set<PosixFilePermission> mode = Files.exists(target) ? Files.getPosixFilePermissions(target)
                : PosixFilePermissions.fromString("rw-r--r--");
        Path tmp = Files.createTempFile(dir, "." + target.getFileName() + ".", ".tmp");
        try {
            Files.writeString(tmp, wanted, StandardCharsets.UTF_8);
            Files.setPosixFilePermissions(tmp, mode);
            Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(tmp);
        }
        return true;
    }

    /**
     * {@code existing} without any of our blocks (duplicated or unterminated ones included), then one
     * blank line and the new block; no block at all when there are no names. Block lines are
     * "ADDRESS&lt;TAB&gt;NAME NAME…", sorted, so equal content gives equal bytes.
     */
    static String render(String existing, SortedMap<String, SortedSet<String>> names) {
        List<String> kept = new ArrayList<>();
        boolean inside = false;
        for (String line : existing.split("\n", -1)) {
            String t = line.strip();
            if (t.equals(BEGIN)) {
                inside = true;
            } else if (t.equals(END)) {
                inside = false;
            } else if (!inside) {
                kept.add(line);
            }
        }
        while (!kept.isEmpty() && kept.get(kept.size() - 1).isBlank()) {
            kept.remove(kept.size() - 1);
        }
        StringBuilder out = new StringBuilder();
        kept.forEach(line -> out.append(line).append('\n'));
        if (names.isEmpty()) {
            return out.toString();
        }
        Map<String, SortedSet<String>> byAddress = new TreeMap<>();
        names.forEach((name, addresses) -> addresses.forEach(
                a -> byAddress.computeIfAbsent(a, x -> new TreeSet<>()).add(name)));
        if (out.length() > 0) {
            out.append('\n');
        }
        out.append(BEGIN).append('\n');
        byAddress.forEach((address, hosts) -> out.append(address).append('\t').append(String.join(" ", hosts)).append('\n'));
        out.append(END).append('\n');
        return out.toString();
    }
}
