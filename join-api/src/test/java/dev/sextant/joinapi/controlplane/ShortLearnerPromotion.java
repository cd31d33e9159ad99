package dev.sextant.joinapi.controlplane;

import dev.sextant.joinapi.clusterstore.EtcdConnection;
import io.micronaut.context.annotation.Property;
import io.micronaut.context.annotation.Replaces;
import io.micronaut.context.annotation.Requires;
import jakarta.inject.Singleton;
import java.time.Clock;
import java.time.Duration;

/**
 * TEST DOUBLE of the promotion timeout: a join service whose never-started learners are removed after
 * {@value #PROPERTY} rather than five minutes, so a test sees the next control plane get through. Active
 * only with that property, which no production configuration names.
 */
@Singleton
@Replaces(LearnerPromotion.class)
@Requires(property = ShortLearnerPromotion.PROPERTY)
public class ShortLearnerPromotion extends LearnerPromotion {
    public static final String PROPERTY = "sextant.test.learner-promotion-timeout";

    public ShortLearnerPromotion(EtcdConnection etcd, Clock clock, @Property(name = PROPERTY) Duration timeout) {
        super(etcd, clock, timeout);
    }
}
