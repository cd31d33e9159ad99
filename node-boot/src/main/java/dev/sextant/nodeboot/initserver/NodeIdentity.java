package dev.sextant.nodeboot.initserver;

import jakarta.inject.Singleton;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Locale;

/** This node's Kubernetes name: configured, else the host name made RFC 1123-safe. */
@Singleton
public final class NodeIdentity {
    private final String name;

    public NodeIdentity(InitSettings settings) {
        this.name = settings.nodeName().isBlank() ? hostName() : settings.nodeName();
    }

    public String name() {
        return name;
    }

    private static String hostName() {
        try {
            return InetAddress.getLocalHost().getHostName().toLowerCase(Locale.ROOT).replace('_', '-');
        } catch (UnknownHostException e) {
            return "sextant-node";
        }
    }
}
