package dev.sextant.atls;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedTrustManager;
import java.net.Socket;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;

/**
 * {@link ServerVerification#insecureAcceptAnyServer()}: a client's trust manager that accepts any
 * server certificate, with a WARN at every handshake so the mode never goes unnoticed in a log. It
 * records no attested state, so {@link PeerAttestation} finds none. It refuses to judge clients:
 * no server is built with it.
 */
final class AnyServerTrustManager extends X509ExtendedTrustManager {
    private static final Logger LOG = LoggerFactory.getLogger(AnyServerTrustManager.class);

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine) {
        accept();
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket) {
        accept();
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) {
        accept();
    }

    private static void accept() {
        LOG.warn("INSECURE: aTLS accepted a server without verifying its attestation"
                + " (ServerVerification.insecureAcceptAnyServer)");
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine) throws CertificateException {
        refuseClient();
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket) throws CertificateException {
        refuseClient();
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        refuseClient();
    }

    private static void refuseClient() throws CertificateException {
        throw new CertificateException("aTLS: this trust manager judges servers only");
    }

    @Override
    public X509Certificate[] getAcceptedIssuers() { return new X509Certificate[0]; }
}
