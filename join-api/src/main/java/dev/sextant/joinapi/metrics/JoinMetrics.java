package dev.sextant.joinapi.metrics;

import dev.sextant.grpcsupport.Refusal;
import dev.sextant.joinapi.refusal.JoinRefusal;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import jakarta.inject.Singleton;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;

/**
 * Prometheus series: {@code sextant_join_tickets_issued_total{kind}},
 * {@code sextant_join_tickets_refused_total{kind,reason}} and the latency histogram
 * {@code sextant_join_ticket_seconds{kind,outcome}}. All series are registered up front so a
 * dashboard sees explicit zeros.
 */
@Singleton
public class JoinMetrics {
    public enum Kind { JOIN, REJOIN }

    private final Map<Kind, Counter> issued = new EnumMap<>(Kind.class);
    private final Map<Kind, Map<JoinRefusal, Counter>> refused = new EnumMap<>(Kind.class);
    private final Map<Kind, Timer> issuedLatency = new EnumMap<>(Kind.class);
    private final Map<Kind, Timer> refusedLatency = new EnumMap<>(Kind.class);

    public JoinMetrics(MeterRegistry registry) {
        for (Kind kind : Kind.values()) {
            String k = kind.name().toLowerCase(java.util.Locale.ROOT);
            issued.put(kind, Counter.builder("sextant.join.tickets.issued").description("Tickets issued")
                    .tag("kind", k).register(registry));
            Map<JoinRefusal, Counter> byReason = new EnumMap<>(JoinRefusal.class);
            for (JoinRefusal reason : JoinRefusal.values()) {
                byReason.put(reason, Counter.builder("sextant.join.tickets.refused")
                        .description("Ticket requests refused, by reason").tag("kind", k).tag("reason", reason.tag())
                        .register(registry));
            }
            refused.put(kind, byReason);
            issuedLatency.put(kind, timer(registry, k, "issued"));
            refusedLatency.put(kind, timer(registry, k, "refused"));
        }
    }

    private static Timer timer(MeterRegistry registry, String kind, String outcome) {
        return Timer.builder("sextant.join.ticket").description("Time to answer a ticket request")
                .tag("kind", kind).tag("outcome", outcome)
                .publishPercentileHistogram().minimumExpectedValue(Duration.ofMillis(1))
                .maximumExpectedValue(Duration.ofSeconds(10)).register(registry);
    }

    public void issued(Kind kind, long nanos) {
        issued.get(kind).increment();
        issuedLatency.get(kind).record(Duration.ofNanos(nanos));
    }

    public void refused(Kind kind, Refusal.Reason reason, long nanos) {
        refused.get(kind).get(reason).increment();
        refusedLatency.get(kind).record(Duration.ofNanos(nanos));
    }
}
