package dev.sextant.nodeboot.joinclient;

import dev.sextant.nodeboot.lifecycle.BootstrapStatus;
import io.micronaut.context.BeanProvider;
import io.micronaut.context.event.StartupEvent;
import io.micronaut.runtime.event.annotation.EventListener;
import jakarta.inject.Singleton;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Runs the join path next to the init server when the node was told where join services are. */
@Singleton
final class JoinStarter {
    private static final Logger LOG = LoggerFactory.getLogger(JoinStarter.class);

    private final JoinClientSettings settings;
    private final BeanProvider<JoinClient> client;
    private final BootstrapStatus status;

    JoinStarter(JoinClientSettings settings, BeanProvider<JoinClient> client, BootstrapStatus status) {
        this.settings = settings;
        this.status = status;
        this.client = client;
    }

    @EventListener
    void onStartup(StartupEvent event) {
        if (!settings.enabled()) {
            LOG.info("No join service endpoints configured: waiting for init only");
            return;
        }
        Thread thread = new Thread(() -> {
            try {
                JoinOutcome outcome = client.get().run();
                LOG.info("Join path ended: {}", outcome);
                if (outcome instanceof JoinOutcome.Joined joined) {
                    status.bootstrapped(settings.controlPlane() ? BootstrapStatus.Role.CONTROL_PLANE
                            : BootstrapStatus.Role.WORKER, joined.kubernetes());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "join-client");
        thread.setDaemon(true);
        thread.start();
    }
}
