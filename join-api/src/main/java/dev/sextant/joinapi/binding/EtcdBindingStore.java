package dev.sextant.joinapi.binding;

import dev.sextant.etcd.client.CreateAllResult;
import dev.sextant.etcd.client.PrefixCount;
import dev.sextant.etcd.client.PrefixUnchangedSince;
import dev.sextant.etcd.client.Versioned;
import dev.sextant.grpcsupport.Refusal;
import dev.sextant.joinapi.binding.BindingStore.NoneCreated;
import dev.sextant.joinapi.clusterstore.EtcdConnection;
import jakarta.inject.Singleton;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The bindings in the cluster's etcd, keys as docs/cluster-store.md lays them out, shared by every join
 * service of the cluster: etcd orders two join services' transactions, so of two joiners racing for one
 * disk exactly one wins, whichever service each asked. Through the service's one {@link EtcdConnection},
 * made at the first call.
 */
@Singleton
public class EtcdBindingStore implements BindingStore {
    static final String MEASUREMENTS_FLOOR = BindingKey.ROOT + "measurements/floor";
    static final String MEASUREMENTS_KEY = BindingKey.ROOT + "measurements/key";
    private final EtcdConnection etcd;

    public EtcdBindingStore(EtcdConnection etcd) {
        this.etcd = etcd;
    }

    @Override
    public CreateOutcome createAll(Map<BindingKey, String> bindings, OptionalLong controlPlanesUnchangedSince) throws Refusal {
        Map<String, String> entries = new LinkedHashMap<>();
        Map<String, BindingKey> byKey = new LinkedHashMap<>();
        bindings.forEach((key, value) -> {
            entries.put(key.key(), value);
            byKey.put(key.key(), key);
        });
        Optional<PrefixUnchangedSince> guard = controlPlanesUnchangedSince.isPresent()
                ? Optional.of(new PrefixUnchangedSince(BindingKey.ROOT + BindingKey.CONTROL_PLANES, controlPlanesUnchangedSince.getAsLong()))
                : Optional.empty();
        CreateAllResult result = etcd.call(c -> c.createAll(entries, guard));
        if (result instanceof CreateAllResult.Refused refused) {
            Map<BindingKey, String> present = new LinkedHashMap<>();
            refused.present().forEach((key, value) -> present.put(byKey.get(key), value));
            return new NoneCreated(present, !refused.changedUnderPrefix().isEmpty());
        }
        return new AllCreated();
    }

    @Override
    public Optional<String> lookup(BindingKey key) throws Refusal {
        return etcd.call(c -> c.get(key.key()));
    }

    @Override
    public Admitted controlPlanes() throws Refusal {
        PrefixCount count = etcd.call(c -> c.count(BindingKey.ROOT + BindingKey.CONTROL_PLANES));
        return new Admitted(count.count(), count.revision());
    }

    @Override
    public MeasurementsRead measurements() throws Refusal {
        Map<String, Versioned> read = etcd.call(c -> c.getAllVersioned(List.of(MEASUREMENTS_KEY, MEASUREMENTS_FLOOR)));
        return new MeasurementsRead(Optional.ofNullable(read.get(MEASUREMENTS_KEY)).map(v -> new Revisioned(v.value(), v.modRevision())),
                Optional.ofNullable(read.get(MEASUREMENTS_FLOOR)).map(v -> new Revisioned(v.value(), v.modRevision())));
    }

    @Override
    public boolean admitMeasurements(MeasurementsRead read, Optional<String> keyPin, OptionalLong floor) throws Refusal {
        Map<String, Long> unmodifiedSince = new LinkedHashMap<>();
        unmodifiedSince.put(MEASUREMENTS_KEY, read.keyPin().map(Revisioned::modRevision).orElse(0L));
        unmodifiedSince.put(MEASUREMENTS_FLOOR, read.floor().map(Revisioned::modRevision).orElse(0L));
        Map<String, String> entries = new LinkedHashMap<>();
        keyPin.ifPresent(pin -> entries.put(MEASUREMENTS_KEY, pin));
        floor.ifPresent(version -> entries.put(MEASUREMENTS_FLOOR, Long.toString(version)));
        return etcd.call(c -> c.putAllIf(Optional.empty(), unmodifiedSince, entries, List.of()).written());
    }

    @Override
    public long roundTrips() {
        return etcd.roundTrips();
    }
}
