package dev.sextant.atls;

import dev.sextant.attestation.Variant;
import dev.sextant.attestation.ecdsa.BouncyCastleEcdsa;
import dev.sextant.attestation.ecdsa.Ecdsa;
import dev.sextant.attestation.issue.Attester;
import dev.sextant.attestation.verify.AttestationVerifier;
import io.grpc.netty.GrpcSslContexts;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.OpenSslContextOption;
import io.netty.handler.ssl.OpenSslSessionContext;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;

import javax.net.ssl.SSLException;
import java.security.SecureRandom;
import java.time.Clock;

/**
 * SslContexts for {@code NettyServerBuilder.sslContext} and {@code NettyChannelBuilder.sslContext}.
 * Modes: server-attested (server attester + client verifier), client-attested (client attester +
 * server verifier; the server then requires a client certificate) and mutual (both). A side
 * without an attester still presents a fresh self-signed certificate; a side without a verifier
 * accepts any peer. BoringSSL (OPENSSL provider) on both ends, TLS 1.3 only, no resumption. The
 * aTLS layer's own signatures (the minted key and certificate, the peer's self-signature) come from
 * {@link BouncyCastleEcdsa} unless an {@link Ecdsa} is given.
 */
public final class AtlsContexts {
    private static final Variant VARIANT = Variant.QEMU_VTPM;

    private AtlsContexts() {}

    /**
     * @param attesterOrNull attests each minted certificate to the client's ClientHello.random; null:
     *                       a bare fresh self-signed certificate
     * @param verifierOrNull verifies clients (then a client certificate is required); null: no client auth
     */
    public static SslContext server(Attester attesterOrNull, AttestationVerifier verifierOrNull) throws SSLException {
        return server(attesterOrNull, verifierOrNull, new BouncyCastleEcdsa(new SecureRandom()));
    }

    /** {@link #server(Attester, AttestationVerifier)} with the aTLS layer's signatures from {@code ecdsa}. */
    public static SslContext server(Attester attesterOrNull, AttestationVerifier verifierOrNull, Ecdsa ecdsa)
            throws SSLException {
        SslContextBuilder builder = SslContextBuilder
                .forServer(new AttestingKeyManager(CertificateMinter.create(ecdsa), attesterOrNull, VARIANT))
                .trustManager(trustManager(verifierOrNull, ecdsa))
                .clientAuth(verifierOrNull == null ? ClientAuth.NONE : ClientAuth.REQUIRE);
        return build(builder);
    }

    /**
     * @param attesterOrNull attests the client certificate, if the server asks for one, to ServerHello.random
     * @param verifierOrNull verifies the server; null: any server is accepted (client-attested mode)
     */
    public static SslContext client(Attester attesterOrNull, AttestationVerifier verifierOrNull) throws SSLException {
        return client(attesterOrNull, verifierOrNull, new BouncyCastleEcdsa(new SecureRandom()));
    }

    /** {@link #client(Attester, AttestationVerifier)} with the aTLS layer's signatures from {@code ecdsa}. */
    public static SslContext client(Attester attesterOrNull, AttestationVerifier verifierOrNull, Ecdsa ecdsa)
            throws SSLException {
        SslContextBuilder builder = SslContextBuilder.forClient()
                .keyManager(new AttestingKeyManager(CertificateMinter.create(ecdsa), attesterOrNull, VARIANT))
                .trustManager(trustManager(verifierOrNull, ecdsa))
                // The peer's identity is its attested AK, not a host name: self-signed aTLS certs carry none.
                .endpointIdentificationAlgorithm(null);
        return build(builder);
    }

    private static VerifyingTrustManager trustManager(AttestationVerifier verifier, Ecdsa ecdsa) {
        return new VerifyingTrustManager(verifier, VARIANT, Clock.systemUTC(), ecdsa);
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
