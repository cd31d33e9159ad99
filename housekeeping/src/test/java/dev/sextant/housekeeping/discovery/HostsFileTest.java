package dev.sextant.housekeeping.discovery;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class HostsFileTest {
    @TempDir
    Path dir;

    private static SortedMap<String, SortedSet<String>> names(String... nameAddress) {
        SortedMap<String, SortedSet<String>> names = new TreeMap<>();
        for (String pair : nameAddress) {
            String[] p = pair.split("=");
            names.computeIfAbsent(p[0], n -> new TreeSet<>()).add(p[1]);
        }
        return names;
    }

    @Test
    @DisplayName("the managed block lists names per address, sorted, after the preserved lines and one blank line")
    void writesBlock() throws Exception {
        Path hosts = dir.resolve("hosts");
        Files.writeString(hosts, "127.0.0.1\tlocalhost\n# operator's own entry\n10.9.9.9 legacy\n\n\n");
        Files.setPosixFilePermissions(hosts, PosixFilePermissions.fromString("rw-r--r--"));
        assertTrue(new HostsFile(hosts).update(names("api.internal.demo=10.0.0.2", "api.internal.demo=10.0.0.1",
                "etcd-node1.internal.demo=10.0.0.1")));
        assertEquals("""
                127.0.0.1\tlocalhost
                # operator's own entry
                10.9.9.9 legacy

                # Begin host entries managed by sextant discovery - do not edit
                10.0.0.1\tapi.internal.demo etcd-node1.internal.demo
                10.0.0.2\tapi.internal.demo
                # End host entries managed by sextant discovery
                """, Files.readString(hosts));
        assertEquals("rw-r--r--", PosixFilePermissions.toString(Files.getPosixFilePermissions(hosts)));
    }

    @Test
    @DisplayName("writing the same names again touches nothing; a change replaces the file by rename, leaving no temporary file")
    void idempotentAndAtomic() throws Exception {
        Path hosts = dir.resolve("hosts");
        Files.writeString(hosts, "127.0.0.1 localhost\n");
        HostsFile file = new HostsFile(hosts);
        file.update(names("api.internal.demo=10.0.0.1"));
        Object inode = Files.readAttributes(hosts, BasicFileAttributes.class).fileKey();
        assertFalse(file.update(names("api.internal.demo=10.0.0.1")));
        assertEquals(inode, Files.readAttributes(hosts, BasicFileAttributes.class).fileKey(), "not rewritten");
        assertTrue(file.update(names("api.internal.demo=10.0.0.2")));
        assertFalse(inode.equals(Files.readAttributes(hosts, BasicFileAttributes.class).fileKey()), "replaced whole");
        try (var files = Files.list(dir)) {
            assertEquals(List.of(hosts), files.toList());
        }
    }

    @Test
    @DisplayName("duplicated or unterminated managed blocks are dropped; no names means no block")
    void repairsAndRemoves() throws Exception {
        String messy = "127.0.0.1 localhost\n" + HostsFile.BEGIN + "\n1.1.1.1 a\n" + HostsFile.END + "\n"
                + HostsFile.BEGIN + "\n2.2.2.2 b\n" + HostsFile.END + "\n::1 ip6-localhost\n" + HostsFile.BEGIN + "\n3.3.3.3 c\n";
        assertEquals("127.0.0.1 localhost\n::1 ip6-localhost\n", HostsFile.render(messy, names()));
    }

    @Test
    @DisplayName("a symlinked hosts file is updated at its target and stays a symlink")
    void followsSymlink() throws Exception {
        Path target = dir.resolve("real-hosts");
        Files.writeString(target, "127.0.0.1 localhost\n");
        Path link = Files.createSymbolicLink(dir.resolve("hosts"), target);
        new HostsFile(link).update(names("api.internal.demo=10.0.0.1"));
        assertTrue(Files.isSymbolicLink(link));
        assertTrue(Files.readString(target).contains("10.0.0.1\tapi.internal.demo"));
    }
}
