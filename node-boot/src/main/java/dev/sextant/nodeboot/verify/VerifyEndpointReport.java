package dev.sextant.nodeboot.verify;

import io.micronaut.context.annotation.Value;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.util.Collections;
import java.util.Objects;
import java.util.Optional;

/**
 * Where this node says its VerifyService answers ("host:port", the gRPC server's port), sent with every
 * join and rejoin ticket request so that the re-attesting join service knows where to ask
 * (docs/re-attestation.md). It is {@code sextant.node.join.verify-advertise} ("HOST:PORT") when set: the
 * host's forward to this node, where the node cannot be reached at its own address (QEMU's user network,
 * where every guest is 10.0.2.15); else the node's first IPv4 address that is up and neither loopback nor
 * link-local, with the gRPC server's port; "" when it has none.
 * It decides nothing but where the join service asks: the answer must come from this node's bound AK.
 */
@Singleton
public final class VerifyEndpointReport {
    private final String endpoint;

    @Inject
    public VerifyEndpointReport(@Value("${sextant.node.join.verify-advertise:}") String advertise,
                                @Value("${grpc.server.port:7443}") int port) {
        this(advertise.isBlank() ? firstAddress().map(host -> host + ":" + port).orElse("") : advertise.strip());
    }

    VerifyEndpointReport(String endpoint) {
        this.endpoint = Objects.requireNonNull(endpoint, "endpoint");
    }

    /** "host:port", or "" when this node knows no address to report. */
    public String endpoint() {
        return endpoint;
    }

    private static Optional<String> firstAddress() {
        try {
            for (NetworkInterface nic : Collections.list(NetworkInterface.getNetworkInterfaces())) {
                if (!nic.isUp() || nic.isLoopback()) {
                    continue;
                }
                for (InetAddress address : Collections.list(nic.getInetAddresses())) {
                    if (address instanceof Inet4Address && !address.isLoopbackAddress() && !address.isLinkLocalAddress()) {
                        return Optional.of(address.getHostAddress());
                    }
                }
            }
        } catch (SocketException e) {
            // No interfaces to list: nothing to report; re-attestation then finds no endpoint for this node.
        }
        return Optional.empty();
    }
}
