package dev.sextant.nodeboot.deploy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;

/**
 * This control plane's own etcd name in the node's hosts file, so that the name etcd advertises resolves on
 * the node itself. One line, marked as ours, outside endpoint discovery's managed block (discovery replaces
 * only that block and keeps every other line). The node image's /etc/hosts is a link into /run (its root is
 * read-only), so the line is written again at every start; the file is replaced by a rename, as discovery
 * replaces it, so a reader never sees half of it.
 */
final class EtcdHostsEntry {
    static final String MARK = "# sextant: this control plane's etcd member";

    private EtcdHostsEntry() {
    }

    static void write(Path hostsFile, String name, String address) throws IOException {
        Path target = target(hostsFile);
        String existing;
        try {
            existing = Files.readString(target, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            existing = "";
        }
        List<String> kept = new ArrayList<>();
        for (String line : existing.split("\n", -1)) {
            if (!line.endsWith(MARK)) {
                kept.add(line);
            }
        }
        while (!kept.isEmpty() && kept.get(kept.size() - 1).isEmpty()) {
            kept.remove(kept.size() - 1);
        }
        kept.add(address + "\t" + name + "\t" + MARK);
        String wanted = String.join("\n", kept) + "\n";
        if (wanted.equals(existing)) {
            return;
        }
        Path dir = Files.createDirectories(target.toAbsolutePath().getParent());
        Path tmp = Files.createTempFile(dir, "." + target.getFileName() + ".", ".tmp",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-r--r--")));
        try {
            Files.writeString(tmp, wanted, StandardCharsets.UTF_8);
            Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rw-r--r--"));
            Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    /** A link is followed to where it points, even when nothing is there yet (the image's /etc/hosts → /run/sextant/hosts). */
    private static Path target(Path hostsFile) throws IOException {
        Path path = hostsFile;
        for (int hops = 0; Files.isSymbolicLink(path); hops++) {
            if (hops > 8) {
                throw new IOException(hostsFile + " is a chain of links that does not end");
            }
            Path link = Files.readSymbolicLink(path);
            path = link.isAbsolute() ? link : path.toAbsolutePath().getParent().resolve(link).normalize();
        }
        return path;
    }
}
