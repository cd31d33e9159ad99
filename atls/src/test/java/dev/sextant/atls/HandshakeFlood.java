package dev.sextant.atls;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * Opens many TLS handshakes at once from one source address, as an attacker without a TPM would:
 * each makes the server mint and quote; the attacker then drops the connection. Plain JDK sockets,
 * so the source address can be chosen (any 127.0.0.0/8 address reaches a loopback server).
 */
final class HandshakeFlood implements AutoCloseable {
    /** How one bogus handshake ended and how long it took. */
    record Outcome(boolean completed, long millis) {}

    private final ExecutorService pool;
    private final List<Future<Outcome>> outcomes = new ArrayList<>();
    private final CountDownLatch started;

    HandshakeFlood(InetAddress source, int port, int connections) throws Exception {
        pool = Executors.newFixedThreadPool(connections);
        started = new CountDownLatch(connections);
        SSLContext tls = SSLContext.getInstance("TLSv1.3");
        tls.init(null, new TrustManager[] {new AnyServer()}, null);
        for (int i = 0; i < connections; i++) {
            outcomes.add(pool.submit(() -> handshake(tls, source, port)));
        }
    }

    private Outcome handshake(SSLContext tls, InetAddress source, int port) {
        long start = System.nanoTime();
        try (SSLSocket socket = (SSLSocket) tls.getSocketFactory().createSocket()) {
            socket.bind(new InetSocketAddress(source, 0));
            started.countDown();
            socket.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
            socket.setSoTimeout(20_000);
            SSLParameters params = socket.getSSLParameters();
            params.setApplicationProtocols(new String[] {"h2"});
            socket.setSSLParameters(params);
            socket.startHandshake();
            return new Outcome(true, (System.nanoTime() - start) / 1_000_000);
        } catch (Exception refused) {
            return new Outcome(false, (System.nanoTime() - start) / 1_000_000);
        }
    }

    void awaitStarted() throws InterruptedException {
        started.await(10, TimeUnit.SECONDS);
    }

    List<Outcome> outcomes() throws Exception {
        List<Outcome> all = new ArrayList<>();
        for (Future<Outcome> f : outcomes) {
            all.add(f.get(60, TimeUnit.SECONDS));
        }
        return all;
    }

    @Override
    public void close() {
        pool.shutdownNow();
    }

    /** The attacker does not care whom it talks to. */
    private static final class AnyServer implements X509TrustManager {
        @Override public void checkClientTrusted(X509Certificate[] chain, String authType) {}
        @Override public void checkServerTrusted(X509Certificate[] chain, String authType) {}
        @Override public X509Certificate[] getAcceptedIssuers() { return new X509Certificate[0]; }
    }
}
