package dev.sextant.atls;

import io.grpc.netty.GrpcSslContexts;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.OpenSslSessionContext;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;

import javax.net.ssl.SSLException;
import java.security.GeneralSecurityException;

/**
 * The baselines: plain TLS 1.3 on BoringSSL with static self-signed P-256 certificates, each side
 * trusting exactly (pinning) the other's. One-way (only the server presents a certificate) or
 * mutual. Same gRPC configuration and the same "no resumption" treatment as aTLS, so the
 * difference is the minting, attesting and verifying. Other modules' benchmarks build their plain
 * baselines with {@link #withoutResumption}, so every baseline is measured the same way.
 */
public final class PlainContexts {
    final SslContext server;
    final SslContext client;

    PlainContexts(boolean mutual) throws GeneralSecurityException, SSLException {
        CertificateMinter minter = CertificateMinter.createDefault();
        MintedCredential s = minter.certify(minter.newKeyPair(), dev.sextant.attestation.Variant.QEMU_VTPM, null);
        MintedCredential c = minter.certify(minter.newKeyPair(), dev.sextant.attestation.Variant.QEMU_VTPM, null);
        SslContextBuilder serverBuilder = SslContextBuilder.forServer(s.key(), s.certificate());
        SslContextBuilder clientBuilder = SslContextBuilder.forClient().trustManager(s.certificate())
                .endpointIdentificationAlgorithm(null); // pinned certificate: no name to check, as in aTLS
        if (mutual) {
            serverBuilder.trustManager(c.certificate()).clientAuth(ClientAuth.REQUIRE);
            clientBuilder.keyManager(c.key(), c.certificate());
        }
        server = withoutResumption(serverBuilder);
        client = withoutResumption(clientBuilder);
    }

    /** TLS 1.3 on BoringSSL with no session cache and no tickets: every handshake a full one, as in aTLS. */
    public static SslContext withoutResumption(SslContextBuilder builder) throws SSLException {
        SslContext base = GrpcSslContexts.configure(builder.protocols("TLSv1.3"), SslProvider.OPENSSL).build();
        ((OpenSslSessionContext) base.sessionContext()).setSessionCacheEnabled(false);
        return new NoResumptionSslContext(base);
    }
}
