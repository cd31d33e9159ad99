package dev.sextant.nodeboot.deploy;

import dev.sextant.etcd.pki.EtcdTlsFiles;
import java.io.IOException;
import java.time.Duration;
import java.util.List;

/**
 * Starts this control plane's member ({@link ControlPlaneEtcd#UNIT}) and waits until it answers a client
 * certificate: whatever comes next (the join service, Kubernetes) must find its store serving. The unit is
 * Type=notify, so systemctl returns once etcd says it serves, or fails when etcd exits first.
 */
final class EtcdUnit {
    private final ControlPlaneEtcd etcd;
    private final Systemctl systemctl;
    private final EtcdProbe probe;
    private final Duration timeout;

    EtcdUnit(ControlPlaneEtcd etcd, Systemctl systemctl, EtcdProbe probe, Duration timeout) {
        this.etcd = etcd;
        this.systemctl = systemctl;
        this.probe = probe;
        this.timeout = timeout;
    }

    EtcdStanding start(EtcdTlsFiles client) throws ClusterServicesException, InterruptedException {
        systemctl.start(List.of(ControlPlaneEtcd.UNIT));
        return answering(client);
    }

    /** What the running member is, asked with {@code client}; refused when it does not answer that certificate. */
    EtcdStanding answering(EtcdTlsFiles client) throws ClusterServicesException, InterruptedException {
        try {
            return EtcdStanding.of(probe.await(etcd.clientEndpoint(), client, timeout));
        } catch (IOException e) {
            throw new ClusterServicesException("etcd (" + ControlPlaneEtcd.UNIT + ") does not answer at " + etcd.clientEndpoint()
                    + " with the client certificate " + client.certFile().getFileName() + " " + timeout.toSeconds()
                    + " s after it started (" + e.getMessage() + "); its log: journalctl -u " + ControlPlaneEtcd.UNIT
                    + "; systemctl status:\n" + systemctl.status(List.of(ControlPlaneEtcd.UNIT)), e);
        }
    }
}
