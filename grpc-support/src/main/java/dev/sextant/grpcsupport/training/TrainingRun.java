package dev.sextant.grpcsupport.training;

import io.micronaut.context.BeanLocator;
import io.micronaut.context.annotation.Requires;
import io.micronaut.context.event.StartupEvent;
import io.micronaut.runtime.EmbeddedApplication;
import io.micronaut.runtime.event.ApplicationStartupEvent;
import io.micronaut.runtime.event.annotation.EventListener;
import jakarta.inject.Singleton;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The class-data-sharing training run that {@code sextant image build} makes of every program it
 * ships: the program runs in the Micronaut environment {@value #ENVIRONMENT} inside the image root,
 * under {@code -XX:ArchiveClassesAtExit}, until the application has started (every server it has,
 * gRPC and the management HTTP port where there is one, serving), then ends; the JVM archives every
 * class start-up loaded, and the program's launcher maps that archive on every later start.
 *
 * <p>The build has no TPM and no secrets, so a program's {@value #ENVIRONMENT} configuration
 * replaces what needs them by something that refuses every use. Such a run is never a node: it
 * warns so at start and ends the moment it serves.
 */
@Singleton
@Requires(env = TrainingRun.ENVIRONMENT)
public final class TrainingRun {
    public static final String ENVIRONMENT = "cds-training";

    private static final Logger LOG = LoggerFactory.getLogger(TrainingRun.class);

    private final BeanLocator beans;
    private final AtomicBoolean ending = new AtomicBoolean();

    TrainingRun(BeanLocator beans) {
        this.beans = beans;
    }

    @EventListener
    void onStart(StartupEvent event) {
        LOG.warn("Class-data-sharing training run ({} environment): not a node and not a service; it ends once it serves",
                ENVIRONMENT);
    }

    /**
     * Each server is an application of its own and says so when it starts; the first one up is not
     * yet all of them (micronaut-grpc starts its server when the HTTP server has started), so a thread
     * of its own waits for every one, then exits: exit runs Micronaut's shutdown hook, which closes the
     * context this event comes from.
     */
    @EventListener
    void onStarted(ApplicationStartupEvent event) {
        if (ending.compareAndSet(false, true)) {
            new Thread(this::endOnceAllServe, "training-run-end").start();
        }
    }

    private void endOnceAllServe() {
        try {
            while (!beans.getBeansOfType(EmbeddedApplication.class).stream().allMatch(EmbeddedApplication::isRunning)) {
                Thread.sleep(20);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        LOG.warn("Class-data-sharing training run: serving, ending now");
        System.exit(0);
    }
}
