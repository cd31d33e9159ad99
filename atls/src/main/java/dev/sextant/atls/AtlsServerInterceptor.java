package dev.sextant.atls;

import javax.net.ssl.SSLSession;
import java.util.Set;
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

/**
 * Makes the client's verified {@link AttestedState} available to service methods through
 * {@link PeerAttestation#current()}. When attestation is required, a call on a connection without
 * one (a misconfigured server, plain TLS) is closed with UNAUTHENTICATED before the method runs:
 * the handshake is the real gate, this is the second lock.
 */
public final class AtlsServerInterceptor implements ServerInterceptor {
    private final boolean attestationRequired;
    private final Set<String> servicesWithoutAttestation;

    public AtlsServerInterceptor(boolean attestationRequired) {
        this(attestationRequired, Set.of());
    }

    /**
     * @param servicesWithoutAttestation full names of the services whose callers prove themselves in the
     *                                   call instead (the operator's service): attestation is not required
     *                                   there, and its methods must check their own proof
     */
    public AtlsServerInterceptor(boolean attestationRequired, Set<String> servicesWithoutAttestation) {
        this.attestationRequired = attestationRequired;
        this.servicesWithoutAttestation = Set.copyOf(servicesWithoutAttestation);
    }

    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
                                                        ServerCallHandler<Q, R> next) {
        SSLSession session = call.getAttributes().get(Grpc.TRANSPORT_ATTR_SSL_SESSION);
        Optional<AttestedState> state = PeerAttestation.of(session);
        Context context = Context.current();
        Optional<byte[]> clientRandom = HandshakeRandom.client(session);
        if (clientRandom.isPresent()) {
            context = context.withValue(HandshakeRandom.CONTEXT_KEY, clientRandom.get());
        }
        if (state.isEmpty()) {
            if (attestationRequired && !servicesWithoutAttestation.contains(call.getMethodDescriptor().getServiceName())) {
                call.close(Status.UNAUTHENTICATED.withDescription("the peer is not attested"), new Metadata());
                return new ServerCall.Listener<>() {};
            }
        } else {
            context = context.withValue(PeerAttestation.CONTEXT_KEY, state.get());
        }
        return Contexts.interceptCall(context, call, headers, next);
    }
}
