package dev.sextant.kms;

import dev.sextant.grpcsupport.Refusal;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.inject.Singleton;
import java.util.EnumMap;
import java.util.Map;

/**
 * Prometheus counters: {@code sextant_kms_keys_issued_total} and
 * {@code sextant_kms_requests_refused_total{reason=...}}, and {@code sextant_kms_connections_refused_total}:
 * connections to the KMS socket from a uid that is not the join service's (closed unread). All series are
 * registered up front so a dashboard sees explicit zeros rather than missing series.
 */
@Singleton
public class KmsMetrics {

    private final Counter issued;
    private final Map<KeyRefusal, Counter> refused = new EnumMap<>(KeyRefusal.class);
    private final Counter connectionsRefused;

    public KmsMetrics(MeterRegistry registry) {
        this.issued = Counter.builder("sextant.kms.keys.issued")
                .description("Data keys derived and returned")
                .register(registry);
        this.connectionsRefused = Counter.builder("sextant.kms.connections.refused")
                .description("Connections to the KMS socket refused: the peer's uid is not the join service's")
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

    /** @param uid the refused peer's uid (-1: unreadable); not a tag, so a stranger cannot grow the series */
    public void connectionRefused(int uid) {
        connectionsRefused.increment();
    }
}
