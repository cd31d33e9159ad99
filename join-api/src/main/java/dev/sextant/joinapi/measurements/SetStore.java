package dev.sextant.joinapi.measurements;

import dev.sextant.etcd.client.Versioned;
import dev.sextant.grpcsupport.Refusal;
import dev.sextant.joinapi.binding.BindingKey;
import dev.sextant.joinapi.clusterstore.EtcdConnection;
import dev.sextant.serviceconfig.JoinServiceConfig;
import jakarta.annotation.PreDestroy;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The measurement set in force as the cluster store holds it (docs/cluster-store.md): {@code measurements/set}
 * (the signed set, {@link SignedSet}), {@code measurements/retired/<imageVersion>} (the hex SHA-256 of a
 * retired image's PCR 4 ‖ 9 ‖ 11, write-once) and the floor, {@code measurements/floor}, raised with them.
 *
 * <p>Its own etcd connection, not the bindings': the set is polled in the background, and those round trips
 * must not count against (or wait behind) a join's. Nothing read here is trusted: every value is checked by
 * {@link SetCheck} before it is used.
 */
@Singleton
public class SetStore implements AutoCloseable {
    static final String SET = BindingKey.ROOT + "measurements/set";
    static final String RETIRED = BindingKey.ROOT + "measurements/retired/";
    static final String FLOOR = BindingKey.ROOT + "measurements/floor";
    static final String KEY_PIN = BindingKey.ROOT + "measurements/key";

    private final EtcdConnection etcd;

    @Inject
    public SetStore(JoinServiceConfig config) {
        this(new EtcdConnection(EtcdConnection.clientConfig(config.etcd())));
    }

    SetStore(EtcdConnection etcd) {
        this.etcd = etcd;
    }

    /** The raw value of {@code measurements/set} and its revision: what a compare-and-put compares. */
    public Optional<Versioned> set() throws Refusal {
        return etcd.call(c -> c.getVersioned(SET));
    }

    /** The retired images: image version to the hex digest of its PCR 4 ‖ 9 ‖ 11. */
    public Map<String, String> retired() throws Refusal {
        Map<String, String> byVersion = new LinkedHashMap<>();
        etcd.call(c -> c.getPrefix(RETIRED)).forEach((key, digest) -> byVersion.put(key.substring(RETIRED.length()), digest));
        return byVersion;
    }

    /** The floor and its revision; absent when no set was admitted yet. A value that is no number is absent, and noted. */
    public Optional<Versioned> floor() throws Refusal {
        return etcd.call(c -> c.getVersioned(FLOOR));
    }

    /** The key pin's text and its revision, if any key is pinned: the revision a commit compares. */
    public Optional<Versioned> keyPin() throws Refusal {
        return etcd.call(c -> c.getVersioned(KEY_PIN));
    }

    /**
     * One transaction: writes {@code set} (when present) if {@code measurements/set} is still at
     * {@code setRevision}, raises the floor to {@code version} if it is still at {@code floorRevision} (0:
     * absent; not written when {@code raiseFloor} is false), and records each newly retired image, compared
     * absent; all only while the key pin is still at {@code keyPinRevision}, the pin the set was judged by (a
     * rotation elsewhere meanwhile: the set is judged again, so no floor is raised by a set of a key no longer
     * pinned). False when anything changed since it was read: read again and decide again.
     */
    public boolean commit(Optional<SignedSet> set, long setRevision, long version, boolean raiseFloor, long floorRevision,
                          Map<String, String> newlyRetired, long keyPinRevision) throws Refusal {
        Map<String, String> puts = new LinkedHashMap<>();
        Map<String, Long> unmodified = new LinkedHashMap<>();
        unmodified.put(KEY_PIN, keyPinRevision);
        set.ifPresent(s -> {
            puts.put(SET, s.storeValue());
            unmodified.put(SET, setRevision);
        });
        if (raiseFloor) {
            puts.put(FLOOR, Long.toString(version));
            unmodified.put(FLOOR, floorRevision);
        }
        newlyRetired.forEach((imageVersion, digest) -> {
            puts.put(RETIRED + imageVersion, digest);
            unmodified.put(RETIRED + imageVersion, 0L);
        });
        if (puts.isEmpty()) {
            return true;
        }
        return etcd.call(c -> c.putAllIf(Optional.empty(), unmodified, puts, List.of()).written());
    }

    /** Writes the first set where etcd holds none (compared absent). False when one is there already. */
    public boolean putFirst(SignedSet set) throws Refusal {
        return etcd.call(c -> c.putIfUnmodified(SET, set.storeValue(), 0));
    }

    @Override
    @PreDestroy
    public void close() {
        etcd.close();
    }
}
