package dev.sextant.grpcsupport.unix;

import static java.nio.file.LinkOption.NOFOLLOW_LINKS;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * The directory a Unix-socket server puts its socket in, and the socket file. The directory is the first
 * lock: a process that cannot search it cannot even connect, whatever its credentials. So it must belong to
 * the server's own uid, grant nothing to other users, and no write to its group (a writer could put a socket
 * of its own in the server's place and answer the server's clients). A missing directory is made 0700; an
 * existing one is checked, never loosened or tightened behind the operator's back.
 */
public final class SocketDirectory {
    private static final int OTHERS = 0007;
    private static final int GROUP_WRITE = 0020;
    private static final int TYPE = 0170000;
    private static final int SOCKET = 0140000;

    private SocketDirectory() {
    }

    /**
     * Makes {@code socket}'s directory ready for a server running as {@code ownUid}, and removes a socket an
     * earlier run left there (a pod's emptyDir outlives a container restart); one a live server still listens on
     * is not taken over.
     *
     * @throws IOException naming the path and what is wrong with it: not a directory, another owner, a mode
     *                     that lets others in, or a file in the socket's place that is not a socket
     */
    public static void prepare(Path socket, int ownUid) throws IOException {
        Path dir = socket.toAbsolutePath().getParent();
        if (!Files.exists(dir, NOFOLLOW_LINKS)) {
            Files.createDirectories(dir.getParent());
            try {
                Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            } catch (FileAlreadyExistsException raced) {
                // Someone made it meanwhile: checked below like any directory that was there.
            }
        }
        if (!Files.isDirectory(dir, NOFOLLOW_LINKS)) {
            throw new IOException("the socket's directory " + dir + " is not a directory (symbolic links are not followed)");
        }
        int owner = (Integer) Files.getAttribute(dir, "unix:uid", NOFOLLOW_LINKS);
        int mode = (Integer) Files.getAttribute(dir, "unix:mode", NOFOLLOW_LINKS);
        if (owner != ownUid) {
            throw new IOException("the socket's directory " + dir + " belongs to uid " + owner + ", not to this service's uid "
                    + ownUid + "; another user could replace the socket");
        }
        if ((mode & (OTHERS | GROUP_WRITE)) != 0) {
            throw new IOException("the socket's directory " + dir + " has mode " + octal(mode)
                    + ", which lets other users in or its group write; make it 0700 (or 0750 for a group of callers)");
        }
        if (Files.exists(socket, NOFOLLOW_LINKS)) {
            int existing = (Integer) Files.getAttribute(socket, "unix:mode", NOFOLLOW_LINKS);
            if ((existing & TYPE) != SOCKET) {
                throw new IOException(socket + " exists and is not a socket; it is left alone and the server does not start");
            }
            if (answers(socket)) {
                throw new IOException("another server listens on " + socket + "; this one does not take its place");
            }
            Files.delete(socket);
        }
    }

    /** A socket some live process still listens on (a left-over one refuses the connection). */
    private static boolean answers(Path socket) {
        try (SocketChannel probe = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            probe.connect(UnixDomainSocketAddress.of(socket));
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * Connecting to a socket needs write permission on it: owner and group may, others may not (the directory
     * already keeps them out; this holds even if it is loosened later).
     */
    public static void restrict(Path socket) throws IOException {
        Files.setPosixFilePermissions(socket, PosixFilePermissions.fromString("rw-rw----"));
    }

    static String octal(int mode) {
        return String.format("%04o", mode & 07777);
    }
}
