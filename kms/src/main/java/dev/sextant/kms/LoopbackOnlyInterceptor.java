package dev.sextant.kms;

import dev.sextant.grpcsupport.Refusal;
import dev.sextant.serviceconfig.KmsConfig;
import io.grpc.Grpc;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Refuses every call whose peer is not on loopback. The only legitimate caller is the join service
 * in the same pod (Kubernetes) or on the same node (node-local), and it always comes over
 * 127.0.0.1; the KMS binds loopback by default and a NetworkPolicy fences the pod, so this is the
 * third lock, for when the other two are misconfigured. Its answer is PERMISSION_DENIED before any
 * key is derived. {@code sextant.kms.insecure-allow-remote-callers} (development only, for a KMS
 * container probed through a published port) lets remote callers in and warns on every such call.
 */
@Singleton
public class LoopbackOnlyInterceptor implements ServerInterceptor {
    private static final Logger LOG = LoggerFactory.getLogger(LoopbackOnlyInterceptor.class);

    private final boolean insecureAllowRemote;
    private final KmsMetrics metrics;

    @Inject
    public LoopbackOnlyInterceptor(KmsConfig config, KmsMetrics metrics) {
        this(config.insecureAllowRemoteCallers(), metrics);
    }

    public LoopbackOnlyInterceptor(boolean insecureAllowRemote, KmsMetrics metrics) {
        this.insecureAllowRemote = insecureAllowRemote;
        this.metrics = metrics;
    }

    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
        SocketAddress peer = call.getAttributes().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR);
        if (isLoopback(peer)) {
            return next.startCall(call, headers);
        }
        if (insecureAllowRemote) {
            LOG.warn("INSECURE: answering a KMS call from {} (sextant.kms.insecure-allow-remote-callers=true); "
                    + "only the join service on loopback should reach the KMS", peer);
            return next.startCall(call, headers);
        }
        Refusal refusal = new Refusal(KeyRefusal.NOT_LOOPBACK,
                "the KMS answers the join service on loopback only; this caller is not on loopback");
        LOG.warn("refused a KMS call from {}: not on loopback", peer);
        metrics.refused(refusal.reason());
        call.close(refusal.toStatus().getStatus(), new Metadata());
        return new ServerCall.Listener<>() {
        };
    }

    static boolean isLoopback(SocketAddress peer) {
        return peer instanceof InetSocketAddress inet && inet.getAddress() != null && inet.getAddress().isLoopbackAddress();
    }
}
