package dev.sextant.joinapi;

import dev.sextant.proto.v1.IssueRejoinTicketRequest;
import dev.sextant.proto.v1.IssueRejoinTicketResponse;
import dev.sextant.proto.v1.JoinServiceGrpc;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import java.math.BigInteger;
import java.net.InetSocketAddress;
import java.security.KeyPair;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.concurrent.TimeUnit;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * The benchmark's baseline: a gRPC server on loopback behind plain mutual TLS 1.3 (self-signed
 * P-256 certificates, no attestation), answering the same trivial refused call as the aTLS
 * handshake run, so the two differ only in what the handshake proves.
 */
final class PlainMutualTls implements AutoCloseable {
    private final Server server;
    private final SslContext client;

    PlainMutualTls() throws Exception {
        KeyPair serverKey = Csrs.ecKey();
        KeyPair clientKey = Csrs.ecKey();
        X509Certificate serverCert = selfSigned(serverKey, "CN=bench-server");
        X509Certificate clientCert = selfSigned(clientKey, "CN=bench-client");
        SslContext serverContext = GrpcSslContexts.configure(SslContextBuilder.forServer(serverKey.getPrivate(), serverCert))
                .trustManager(clientCert).clientAuth(ClientAuth.REQUIRE).protocols("TLSv1.3").build();
        server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0)).sslContext(serverContext)
                .addService(new JoinServiceGrpc.JoinServiceImplBase() {
                    @Override
                    public void issueRejoinTicket(IssueRejoinTicketRequest request,
                                                  StreamObserver<IssueRejoinTicketResponse> responses) {
                        responses.onError(Status.INVALID_ARGUMENT.withDescription("handshake only").asRuntimeException());
                    }
                }).build().start();
        client = GrpcSslContexts.forClient().keyManager(clientKey.getPrivate(), clientCert).trustManager(serverCert)
                .protocols("TLSv1.3").build();
    }

    int port() {
        return server.getPort();
    }

    SslContext client() {
        return client;
    }

    private static X509Certificate selfSigned(KeyPair key, String subject) throws Exception {
        X500Name name = new X500Name(subject);
        Instant now = Instant.now();
        JcaX509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(name, BigInteger.ONE,
                Date.from(now.minus(Duration.ofDays(1))), Date.from(now.plus(Duration.ofDays(1))), name, key.getPublic());
        // The client dials 127.0.0.1 and checks the server's certificate names it.
        b.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(new GeneralName(GeneralName.iPAddress, "127.0.0.1")));
        return new JcaX509CertificateConverter().getCertificate(
                b.build(new JcaContentSignerBuilder("SHA256withECDSA").build(key.getPrivate())));
    }

    @Override
    public void close() throws InterruptedException {
        server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
}
