package dev.sextant.grpcsupport.unix;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@DisplayName("SocketDirectory: a socket's directory belongs to the server and lets no other user in")
class SocketDirectoryTest {
    @TempDir
    Path dir;

    private final int me = ProcessUid.current();

    private static int mode(Path p) throws IOException {
        return (Integer) Files.getAttribute(p, "unix:mode") & 07777;
    }

    @Test
    @DisplayName("a missing directory is made 0700")
    void madePrivate() throws IOException {
        Path socket = dir.resolve("a/kms/kms.sock");
        SocketDirectory.prepare(socket, me);
        assertEquals(0700, mode(socket.getParent()));
    }

    @Test
    @DisplayName("0700 and 0750 (a group that may enter but not write) are accepted; group write or any access for others is refused, naming the mode")
    void modes() throws IOException {
        for (int ok : new int[] {0700, 0750, 02750}) {
            Path d = Files.createDirectory(dir.resolve("ok" + Integer.toOctalString(ok)));
            Files.setAttribute(d, "unix:mode", ok);
            SocketDirectory.prepare(d.resolve("s.sock"), me);
        }
        for (int bad : new int[] {0770, 0701, 0755, 0777}) {
            Path d = Files.createDirectory(dir.resolve("bad" + Integer.toOctalString(bad)));
            Files.setAttribute(d, "unix:mode", bad);
            IOException e = assertThrows(IOException.class, () -> SocketDirectory.prepare(d.resolve("s.sock"), me));
            assertTrue(e.getMessage().contains(String.format("%04o", bad)) && e.getMessage().contains(d.toString()), e.getMessage());
        }
    }

    @Test
    @DisplayName("a directory of another uid is refused, naming both uids")
    void otherOwner() throws IOException {
        Path d = Files.createDirectory(dir.resolve("theirs"));
        Files.setAttribute(d, "unix:mode", 0700);
        IOException e = assertThrows(IOException.class, () -> SocketDirectory.prepare(d.resolve("s.sock"), me + 1));
        assertTrue(e.getMessage().contains("uid " + me) && e.getMessage().contains("uid " + (me + 1)), e.getMessage());
    }

    @Test
    @DisplayName("a socket left by an earlier run is removed; a live one, or a file that is not a socket, is left alone and refused")
    void leftOvers() throws IOException {
        Path d = Files.createDirectory(dir.resolve("s"));
        Files.setAttribute(d, "unix:mode", 0700);
        Path socket = d.resolve("kms.sock");
        try (ServerSocketChannel live = ServerSocketChannel.open(StandardProtocolFamily.UNIX).bind(UnixDomainSocketAddress.of(socket))) {
            IOException e = assertThrows(IOException.class, () -> SocketDirectory.prepare(socket, me));
            assertTrue(e.getMessage().contains("another server listens"), e.getMessage());
        }
        assertTrue(Files.exists(socket), "the JDK leaves the socket file behind, as a crashed server would");
        SocketDirectory.prepare(socket, me);
        assertFalse(Files.exists(socket));

        Files.writeString(socket, "not a socket");
        IOException e = assertThrows(IOException.class, () -> SocketDirectory.prepare(socket, me));
        assertTrue(e.getMessage().contains("is not a socket"), e.getMessage());
        assertEquals("not a socket", Files.readString(socket));
    }
}
