package dev.sextant.nodeboot.revocations;

import dev.sextant.etcd.client.EtcdException;
import dev.sextant.etcd.client.Versioned;
import dev.sextant.housekeeping.discovery.EndpointDiscovery;
import java.time.Duration;
import java.util.Base64;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hands the cluster's revocation list from the cluster store ({@code revocations/list}, which the join
 * services' re-attestation holder and the operator's {@code Revoke} write) to this control plane's
 * discovery, which applies it and passes it on to every member. Read every {@code period} (default 2 s, as
 * the join service reads the measurement set), one etcd read; a revision already handed on is not handed
 * again. Nothing here is trusted: whoever can write etcd can write that key, so discovery verifies the list
 * (the discovery CA's signature, this cluster's ID) and keeps the highest version it verified; a list that
 * fails is refused, logged once per revision, and changes nothing on any member.
 */
public final class RevocationListPoller implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RevocationListPoller.class);

    /** The stored list with its revision; empty when there is none, or no cluster store to read on this node. */
    @FunctionalInterface
    public interface Source {
        Optional<Versioned> read() throws EtcdException;
    }

    private final Source source;
    private final EndpointDiscovery discovery;
    private final Object lock = new Object();
    private long seenRevision = -1;
    private boolean storeDown;
    private Thread thread;

    public RevocationListPoller(Source source, EndpointDiscovery discovery) {
        this.source = source;
        this.discovery = discovery;
    }

    /** Starts reading every {@code period} on a daemon thread. */
    public synchronized RevocationListPoller start(Duration period) {
        if (thread == null) {
            thread = new Thread(() -> run(period), "revocation-list-poller");
            thread.setDaemon(true);
            thread.start();
        }
        return this;
    }

    private void run(Duration period) {
        try {
            while (!Thread.currentThread().isInterrupted()) {
                syncOnce();
                Thread.sleep(period.toMillis());
            }
        } catch (InterruptedException e) {
            // Closing: the normal way out.
        } catch (RuntimeException e) {
            LOG.error("the revocation list poller stopped; lists written from now on reach this node's discovery only from"
                    + " other control planes until restart", e);
        }
    }

    /** One look at {@code revocations/list}: hand it to discovery if its revision is new. True when discovery applied it. */
    public boolean syncOnce() {
        synchronized (lock) {
            if (!discovery.running()) {
                return false; // nothing to hand to yet, and nothing marked seen: the first look once it runs hands the list on
            }
            Optional<Versioned> stored;
            try {
                stored = source.read();
                if (storeDown) {
                    LOG.info("the cluster store answers again: reading revocations/list");
                }
                storeDown = false;
            } catch (EtcdException e) {
                if (!storeDown) {
                    LOG.warn("revocations/list could not be read: {}; trying again", e.getMessage());
                }
                storeDown = true;
                return false;
            }
            if (stored.isEmpty() || stored.get().modRevision() == seenRevision) {
                return false;
            }
            long revision = stored.get().modRevision();
            seenRevision = revision;
            return handOn(revision, stored.get().value());
        }
    }

    private boolean handOn(long revision, String value) {
        byte[] list;
        try {
            list = Base64.getDecoder().decode(value);
        } catch (IllegalArgumentException e) {
            LOG.error("refusing revocations/list (revision {}): not base64", revision);
            return false;
        }
        try {
            if (discovery.publishRevocations(list)) {
                LOG.info("handed the revocation list of revocations/list (revision {}) to discovery: version {} applied",
                        revision, discovery.revocationVersion());
                return true;
            }
            LOG.debug("revocations/list (revision {}) is not newer than the list applied here (version {})", revision,
                    discovery.revocationVersion());
        } catch (IllegalArgumentException e) {
            LOG.error("refusing revocations/list (revision {}), keeping list version {}: {}", revision,
                    discovery.revocationVersion(), e.getMessage());
        } catch (IllegalStateException e) {
            LOG.error("revocations/list (revision {}) not handed on: {}", revision, e.getMessage());
        }
        return false;
    }

    @Override
    public void close() {
        Thread running;
        synchronized (this) {
            running = thread;
        }
        if (running != null) {
            running.interrupt();
        }
    }
}
