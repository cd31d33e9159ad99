package dev.sextant.nodeboot.initserver;

import jakarta.inject.Singleton;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Locale;

/** This node's Kubernetes name: configured, else read from the name file, else the host name made RFC 1123-safe. */
@Singleton
public final class NodeIdentity {
    private final String name;

    public NodeIdentity(InitSettings settings) {
        this.name = !settings.nodeName().isBlank() ? settings.nodeName()
                : fromFile(settings.nodeNameFile()).orElseGet(NodeIdentity::hostName);
    }

    public String name() {
        return name;
    }

    private static Optional<String> fromFile(Path file) {
        try {
            return file == null || !Files.exists(file) ? Optional.empty()
                    : Optional.of(Files.readString(file).strip()).filter(n -> !n.isEmpty());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the node name from " + file + ": " + e.getMessage(), e);
        }
    }

    private static String hostName() {
        try {
            return InetAddress.getLocalHost().getHostName().toLowerCase(Locale.ROOT).replace('_', '-');
        } catch (UnknownHostException e) {
            return "sextant-node";
        }
    }
}
