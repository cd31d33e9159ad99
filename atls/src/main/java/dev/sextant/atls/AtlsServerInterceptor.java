package dev.sextant.atls;

import dev.sextant.attestation.verify.AttestedState;
import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.Grpc;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;

import java.util.Optional;
import java.util.Set;

/**
 * Makes the client's verified {@link AttestedState} available to service methods through
 * {@link PeerAttestation#current()}. When attestation is required, a call on a connection without
 * one (a misconfigured server, plain TLS) is closed with UNAUTHENTICATED before the method runs:
 * the handshake is the real gate, this is the second lock. A call on a connection whose client was
 * refused by the policy but told so ({@link ClientVerification#telling}) is closed with
 * PERMISSION_DENIED and the refusal's line, whether attestation is required or not.
 */
public final class AtlsServerInterceptor implements ServerInterceptor {
    private final boolean attestationRequired;
    private final Set<String> openToUnattested;

    public AtlsServerInterceptor(boolean attestationRequired) {
        this(attestationRequired, Set.of());
    }

    /**
     * @param openToUnattested full gRPC service names whose calls need no attestation where it is otherwise
     *                         required (with {@link ClientVerification#ifPresented}): a service that asks
     *                         nothing of its caller, beside services that ask everything
     */
    public AtlsServerInterceptor(boolean attestationRequired, Set<String> openToUnattested) {
        this.attestationRequired = attestationRequired;
        this.openToUnattested = Set.copyOf(openToUnattested);
    }

    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
                                                        ServerCallHandler<Q, R> next) {
        javax.net.ssl.SSLSession session = call.getAttributes().get(Grpc.TRANSPORT_ATTR_SSL_SESSION);
        Optional<String> refusal = PeerAttestation.refusal(session);
        if (refusal.isPresent()) { // a genuine peer refused by the policy (ClientVerification.telling): told, never served
            call.close(Status.PERMISSION_DENIED.withDescription("attestation rejected: " + refusal.get()), new Metadata());
            return new ServerCall.Listener<>() {};
        }
        Optional<AttestedState> state = PeerAttestation.of(session);
        if (state.isEmpty()) {
            if (attestationRequired && !openToUnattested.contains(call.getMethodDescriptor().getServiceName())) {
                call.close(Status.UNAUTHENTICATED.withDescription("the peer is not attested"), new Metadata());
                return new ServerCall.Listener<>() {};
            }
            return next.startCall(call, headers);
        }
        Context context = Context.current().withValue(PeerAttestation.CONTEXT_KEY, state.get());
        return Contexts.interceptCall(context, call, headers, next);
    }
}
