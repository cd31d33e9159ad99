package dev.sextant.nodeboot.deploy;

import dev.sextant.etcd.client.EndpointStatus;
import dev.sextant.etcd.client.EtcdClient;
import dev.sextant.etcd.client.EtcdClientConfig;
import dev.sextant.etcd.client.EtcdException;
import dev.sextant.etcd.pki.EtcdTlsFiles;
import jakarta.inject.Singleton;
import java.io.IOException;
import java.time.Duration;
import java.util.List;

/**
 * The member's own status call, asked with a client certificate: it answers only once it serves clients
 * (a listening port alone could be etcd still replaying its log), and it proves that certificate is one
 * the member accepts.
 */
@Singleton
public final class EtcdStatusProbe implements EtcdProbe {
    private static final Duration ATTEMPT = Duration.ofSeconds(2);
    private static final long PAUSE_MILLIS = 250;

    @Override
    public EndpointStatus await(String endpoint, EtcdTlsFiles tls, Duration timeout) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        EtcdException last = null;
        try (EtcdClient client = new EtcdClient(new EtcdClientConfig(List.of(endpoint), tls, ATTEMPT))) {
            do {
                try {
                    return client.status(endpoint);
                } catch (EtcdException e) {
                    last = e;
                    Thread.sleep(PAUSE_MILLIS);
                }
            } while (System.nanoTime() < deadline);
        }
        throw new IOException(last == null ? "no attempt was made" : last.getMessage());
    }
}
