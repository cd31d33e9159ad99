package dev.sextant.joinapi.token;

import dev.sextant.joinapi.kube.ApiFailures;
import dev.sextant.serviceconfig.JoinServiceConfig;
import io.kubernetes.client.openapi.ApiException;
import io.micronaut.context.annotation.Context;
import io.micronaut.context.annotation.Requires;
import jakarta.annotation.PreDestroy;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs {@link BootstrapTokenCleaner} every {@link #INTERVAL} while the join service runs. A kubelet renews its
 * lease every 10 s, so a joined node's token is gone about 20 s after its kubelet first ran; a pass that
 * fails (an API server in trouble) is logged and the next one tries again.
 */
@Context
@Requires(property = JoinServiceConfig.KUBERNETES_ENABLED, notEquals = "false")
public class BootstrapTokenCleanup {
    static final Duration INTERVAL = Duration.ofSeconds(10);
    private static final Logger LOG = LoggerFactory.getLogger(BootstrapTokenCleanup.class);

    private final BootstrapTokenCleaner cleaner;
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "bootstrap-token-cleanup");
        t.setDaemon(true);
        return t;
    });

    public BootstrapTokenCleanup(BootstrapTokenCleaner cleaner) {
        this.cleaner = cleaner;
        timer.scheduleWithFixedDelay(this::sweep, INTERVAL.toMillis(), INTERVAL.toMillis(), TimeUnit.MILLISECONDS);
    }

    private void sweep() {
        try {
            cleaner.sweep();
        } catch (ApiException e) {
            LOG.warn("bootstrap token cleanup: {}; next pass in {} s", ApiFailures.refusal("sweeping bootstrap tokens", e).getMessage(),
                    INTERVAL.toSeconds());
        } catch (RuntimeException e) {
            // The class only: a message could quote an API answer, and a list of tokens holds their secrets.
            LOG.warn("bootstrap token cleanup failed ({}); next pass in {} s", e.getClass().getSimpleName(), INTERVAL.toSeconds());
        }
    }

    @PreDestroy
    void stop() {
        timer.shutdownNow();
    }
}
