package dev.sextant.atls;

import dev.sextant.attestation.Variant;
import dev.sextant.attestation.ecdsa.BouncyCastleEcdsa;
import dev.sextant.attestation.ecdsa.Ecdsa;
import dev.sextant.attestation.issue.Attester;
import dev.sextant.attestation.verify.AttestationVerifier;
import dev.sextant.attestation.verify.Reason;
import io.grpc.netty.GrpcSslContexts;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.OpenSslContextOption;
import io.netty.handler.ssl.OpenSslSessionContext;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;

import javax.net.ssl.SSLException;
import javax.net.ssl.X509ExtendedTrustManager;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.Set;

/**
 * SslContexts for {@code NettyServerBuilder.sslContext} and {@code NettyChannelBuilder.sslContext}.
 * Each side says what it presents ({@link OwnAttestation}) and what it asks of its peer
 * ({@link ClientVerification} on a server, {@link ServerVerification} on a client), so a call site
 * reads as the mode it builds:
 * <pre>{@code
 * AtlsContexts.server(OwnAttestation.by(tpm), ClientVerification.anonymous())       // server-attested
 * AtlsContexts.client(OwnAttestation.none(), ServerVerification.by(verifier))
 * AtlsContexts.server(OwnAttestation.by(tpm), ClientVerification.by(verifier))     // mutual
 * AtlsContexts.client(OwnAttestation.by(tpm), ServerVerification.by(verifier))
 * }</pre>
 * A side that does not attest still presents a fresh self-signed certificate. BoringSSL (OPENSSL
 * provider) on both ends, TLS 1.3 only, no resumption. The aTLS layer's own signatures (the minted
 * key and certificate, the peer's self-signature) come from {@link BouncyCastleEcdsa} unless an
 * {@link Ecdsa} is given.
 */
public final class AtlsContexts {
    private static final Variant VARIANT = Variant.QEMU_VTPM;

    private AtlsContexts() {}

    /**
     * @param own     what the minted certificate carries: a document over the client's ClientHello.random,
     *                or nothing
     * @param clients whether clients must present a certificate whose attestation passes a verifier
     */
    public static SslContext server(OwnAttestation own, ClientVerification clients) throws SSLException {
        return server(own, clients, new BouncyCastleEcdsa(new SecureRandom()));
    }

    /** {@link #server(OwnAttestation, ClientVerification)} with the aTLS layer's signatures from {@code ecdsa}. */
    public static SslContext server(OwnAttestation own, ClientVerification clients, Ecdsa ecdsa) throws SSLException {
        SslContextBuilder builder = SslContextBuilder.forServer(keyManager(own, ecdsa));
        if (clients instanceof ClientVerification.Required required) {
            builder.trustManager(telling(required.verifier(), required.toldInCall(), ecdsa)).clientAuth(ClientAuth.REQUIRE);
        } else if (clients instanceof ClientVerification.IfPresented ifPresented) {
            builder.trustManager(telling(ifPresented.verifier(), ifPresented.toldInCall(), ecdsa)).clientAuth(ClientAuth.OPTIONAL);
        } else {
            builder.clientAuth(ClientAuth.NONE);
        }
        return build(builder);
    }

    /**
     * @param own    what the client certificate carries, if the server asks for one: a document over
     *               ServerHello.random, or nothing
     * @param server what the server's attestation must pass, or (insecure) nothing at all
     */
    public static SslContext client(OwnAttestation own, ServerVerification server) throws SSLException {
        return client(own, server, new BouncyCastleEcdsa(new SecureRandom()));
    }

    /** {@link #client(OwnAttestation, ServerVerification)} with the aTLS layer's signatures from {@code ecdsa}. */
    public static SslContext client(OwnAttestation own, ServerVerification server, Ecdsa ecdsa) throws SSLException {
        X509ExtendedTrustManager trust = server instanceof ServerVerification.Verified verified
                ? verifying(verified.verifier(), verified.proof(), ecdsa) : new AnyServerTrustManager();
        SslContextBuilder builder = SslContextBuilder.forClient()
                .keyManager(keyManager(own, ecdsa))
                .trustManager(trust)
                // The peer's identity is its attested AK, not a host name: self-signed aTLS certs carry none.
                .endpointIdentificationAlgorithm(null);
        return build(builder);
    }

    private static AttestingKeyManager keyManager(OwnAttestation own, Ecdsa ecdsa) {
        return new AttestingKeyManager(CertificateMinter.create(ecdsa), own, VARIANT);
    }

    private static VerifyingTrustManager telling(AttestationVerifier verifier, Set<Reason> toldInCall,
                                                 Ecdsa ecdsa) {
        return new VerifyingTrustManager(verifier, VARIANT, Clock.systemUTC(), ecdsa, toldInCall);
    }

    private static VerifyingTrustManager verifying(AttestationVerifier verifier, HandshakeProofCheck proof, Ecdsa ecdsa) {
        return new VerifyingTrustManager(verifier, VARIANT, Clock.systemUTC(), ecdsa, Set.of(), proof);
    }

    private static SslContext build(SslContextBuilder builder) throws SSLException {
        if (!OpenSsl.isAvailable()) {
            throw new SSLException("aTLS needs netty-tcnative-boringssl-static", OpenSsl.unavailabilityCause());
        }
        // USE_TASKS: BoringSSL's certificate and verify callbacks (mint, quote, verify) become delegated
        // tasks, run on the executor the server is given (AtlsServers) instead of the event loop.
        SslContext base = GrpcSslContexts.configure(builder.protocols("TLSv1.3"), SslProvider.OPENSSL)
                .option(OpenSslContextOption.USE_TASKS, true).build();
        // No session cache: the server must never resume, and the client must never offer to.
        ((OpenSslSessionContext) base.sessionContext()).setSessionCacheEnabled(false);
        return new NoResumptionSslContext(base);
    }
}
