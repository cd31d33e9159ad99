package dev.sextant.kms;

import dev.sextant.grpcsupport.Refusal;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.inject.Singleton;
import java.util.EnumMap;
import java.util.Map;

/**
 * Prometheus counters: {@code sextant_kms_keys_issued_total} and
 * {@code sextant_kms_requests_refused_total{reason=...}}. All reasons are registered up front so a
 * dashboard sees explicit zeros rather than missing series.
 */
@Singleton
public class KmsMetrics {

    private final Counter issued;
    private final Map<KeyRefusal, Counter> refused = new EnumMap<>(KeyRefusal.class);

    public KmsMetrics(MeterRegistry registry) {
        this.issued = Counter.builder("sextant.kms.keys.issued")
                .description("Data keys derived and returned")
                .register(registry);
        for (KeyRefusal reason : KeyRefusal.values()) {
            refused.put(reason, Counter.builder("sextant.kms.requests.refused")
                    .description("Key requests refused, by reason")
                    .tag("reason", reason.tag())
                    .register(registry));
        }
    }

    public void keyIssued() {
        issued.increment();
    }

    public void refused(Refusal.Reason reason) {
        refused.get(reason).increment();
    }
}
