package dev.sextant.kms;

import dev.sextant.grpcsupport.ConnectionLimits;
import dev.sextant.grpcsupport.unix.ProcessUid;
import dev.sextant.grpcsupport.unix.UnixSocketGrpcServer;
import dev.sextant.serviceconfig.KmsConfig;
import io.micronaut.context.annotation.Context;
import jakarta.annotation.PreDestroy;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The KMS's gRPC server: on its Unix socket and nowhere else. The KMS has one caller, the join service
 * beside it (same pod, or same node), so it has no TCP port that another pod, a process in its network
 * namespace or {@code kubectl port-forward} could reach; the socket's directory belongs to the KMS's uid
 * and lets no other user in, and each connection is checked against {@link KmsConfig#peerUids()} (the
 * join service's uid, as the kernel reports the peer) before a byte of it is read. Started with the
 * context ({@code @Context}): a socket that cannot be served stops the KMS at start-up, naming the path.
 */
@Context
public class KmsSocketServer {
    private static final Logger LOG = LoggerFactory.getLogger(KmsSocketServer.class);
    /** A valid request is under 150 bytes; the 4 MiB gRPC default only invites memory pressure. */
    static final int MAX_INBOUND_MESSAGE_BYTES = 65536;

    private final UnixSocketGrpcServer server;

    public KmsSocketServer(KmsConfig config, KeyServiceEndpoint endpoint, KmsMetrics metrics) {
        try {
            this.server = new UnixSocketGrpcServer("the KMS", config.socket(), ProcessUid.current(), config.peerUids(),
                    metrics::connectionRefused, builder -> ConnectionLimits.defaults().applyTo(builder)
                            .maxInboundMessageSize(MAX_INBOUND_MESSAGE_BYTES)
                            .addService(endpoint));
        } catch (IOException e) {
            throw new UncheckedIOException(e.getMessage(), e);
        }
        LOG.info("KMS serving on the Unix socket {} for uid {}", server.socket(), config.peerUids());
    }

    public Path socket() {
        return server.socket();
    }

    public boolean isServing() {
        return server.isServing();
    }

    @PreDestroy
    void stop() throws InterruptedException {
        server.close();
    }
}
