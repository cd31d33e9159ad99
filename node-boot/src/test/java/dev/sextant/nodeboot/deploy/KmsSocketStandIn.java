package dev.sextant.nodeboot.deploy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * TEST DOUBLE of sextant-kms.service's socket: a Unix socket listening at the path the KMS would serve on, as
 * soon as "systemctl start" returned, so the deployer's wait for the KMS ends. It never accepts a call.
 */
public final class KmsSocketStandIn implements AutoCloseable {
    private final Path socket;
    private final ServerSocketChannel channel;

    public KmsSocketStandIn(Path socket) {
        this.socket = socket;
        try {
            Files.createDirectories(socket.getParent());
            this.channel = ServerSocketChannel.open(StandardProtocolFamily.UNIX).bind(UnixDomainSocketAddress.of(socket), 50);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public Path socket() {
        return socket;
    }

    @Override
    public void close() throws IOException {
        channel.close();
        Files.deleteIfExists(socket);
    }
}
