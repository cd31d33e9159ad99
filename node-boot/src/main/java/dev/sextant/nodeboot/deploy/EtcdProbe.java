package dev.sextant.nodeboot.deploy;

import dev.sextant.etcd.client.EndpointStatus;
import dev.sextant.etcd.pki.EtcdTlsFiles;
import java.io.IOException;
import java.time.Duration;

/** Waits until an etcd member answers on its client port, over mutual TLS with the given certificate. */
public interface EtcdProbe {
    /**
     * @param endpoint {@code host:port} of the member's client port
     * @throws IOException when it has not answered within {@code timeout}, with the last error it gave
     */
    EndpointStatus await(String endpoint, EtcdTlsFiles tls, Duration timeout) throws IOException, InterruptedException;
}
