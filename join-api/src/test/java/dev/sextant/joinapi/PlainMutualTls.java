package dev.sextant.joinapi;

import dev.sextant.atls.PlainContexts;
import dev.sextant.proto.v1.IssueRejoinTicketRequest;
import dev.sextant.proto.v1.IssueRejoinTicketResponse;
import dev.sextant.proto.v1.JoinServiceGrpc;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import java.math.BigInteger;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.security.KeyPair;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedTrustManager;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * The benchmark's baseline: a gRPC server on loopback behind plain mutual TLS 1.3 (self-signed
 * P-256 certificates, each side pinning the other's, no attestation), answering the same trivial
 * refused call as the aTLS handshake run, so the two differ only in what the handshake proves.
 *
 * <p>Built with bench-atls's {@link PlainContexts#withoutResumption}: BoringSSL, TLS 1.3 only, no session
 * cache and no session tickets, no host name check. aTLS never resumes, so a baseline that resumed
 * would compare aTLS's full handshakes with abbreviated ones: every call after the first reuses the
 * client's cached ticket. The trust managers are this class's own, to count the checks.
 * {@link #peerChecks()} shows it held: a full handshake checks both peers' certificates, a resumed one none.
 */
final class PlainMutualTls implements AutoCloseable {
    private final Server server;
    private final SslContext client;
    private final LongAdder peerChecks = new LongAdder();

    PlainMutualTls() throws Exception {
        KeyPair serverKey = Csrs.ecKey();
        KeyPair clientKey = Csrs.ecKey();
        X509Certificate serverCert = selfSigned(serverKey, "CN=bench-server");
        X509Certificate clientCert = selfSigned(clientKey, "CN=bench-client");
        SslContext serverContext = PlainContexts.withoutResumption(SslContextBuilder.forServer(serverKey.getPrivate(), serverCert)
                .trustManager(new PinnedTrust(clientCert, peerChecks)).clientAuth(ClientAuth.REQUIRE));
        server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0)).sslContext(serverContext)
                .addService(new JoinServiceGrpc.JoinServiceImplBase() {
                    @Override
                    public void issueRejoinTicket(IssueRejoinTicketRequest request,
                                                  StreamObserver<IssueRejoinTicketResponse> responses) {
                        responses.onError(Status.INVALID_ARGUMENT.withDescription("handshake only").asRuntimeException());
                    }
                }).build().start();
        client = PlainContexts.withoutResumption(SslContextBuilder.forClient().keyManager(clientKey.getPrivate(), clientCert)
                .trustManager(new PinnedTrust(serverCert, peerChecks))
                .endpointIdentificationAlgorithm(null)); // pinned certificate: no name to check, as in aTLS
    }

    int port() {
        return server.getPort();
    }

    SslContext client() {
        return client;
    }

    /** Peer certificates checked so far by both ends: two per full handshake, none for a resumed one. */
    long peerChecks() {
        return peerChecks.sum();
    }

    private static X509Certificate selfSigned(KeyPair key, String subject) throws Exception {
        X500Name name = new X500Name(subject);
        Instant now = Instant.now();
        JcaX509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(name, BigInteger.ONE,
                Date.from(now.minus(Duration.ofDays(1))), Date.from(now.plus(Duration.ofDays(1))), name, key.getPublic());
        return new JcaX509CertificateConverter().getCertificate(
                b.build(new JcaContentSignerBuilder("SHA256withECDSA").build(key.getPrivate())));
    }

    /** Trusts exactly one certificate, and counts every check. */
    private static final class PinnedTrust extends X509ExtendedTrustManager {
        private final X509Certificate pinned;
        private final LongAdder checks;

        PinnedTrust(X509Certificate pinned, LongAdder checks) {
            this.pinned = pinned;
            this.checks = checks;
        }

        private void check(X509Certificate[] chain) throws CertificateException {
            checks.increment();
            if (chain == null || chain.length == 0 || !chain[0].equals(pinned)) {
                throw new CertificateException("not the pinned certificate");
            }
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
            check(chain);
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
            check(chain);
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket) throws CertificateException {
            check(chain);
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket) throws CertificateException {
            check(chain);
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine) throws CertificateException {
            check(chain);
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine) throws CertificateException {
            check(chain);
        }

        @Override
        public X509Certificate[] getAcceptedIssuers() {
            return new X509Certificate[] {pinned};
        }
    }

    @Override
    public void close() throws InterruptedException {
        server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
}
