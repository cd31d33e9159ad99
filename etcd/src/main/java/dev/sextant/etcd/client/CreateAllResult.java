package dev.sextant.etcd.client;

import java.util.List;
import java.util.Map;

/** What a create-all transaction did: created every key, or nothing. */
public sealed interface CreateAllResult {
    /** Every key was absent and is now written, at {@code revision}. */
    record Created(long revision) implements CreateAllResult {
    }

    /**
     * Nothing was written. {@code present} holds every one of the requested keys that exists, with its
     * current value, read in the same transaction; {@code changedUnderPrefix} the keys under a guarded
     * prefix modified after the guard's revision (empty without a guard, or when the keys alone refused).
     * A call retried after a lost answer can find its own first attempt's values here.
     */
    record Refused(Map<String, String> present, List<String> changedUnderPrefix) implements CreateAllResult {
        public Refused {
            present = Map.copyOf(present);
            changedUnderPrefix = List.copyOf(changedUnderPrefix);
        }

        @Override
        public String toString() {
            return "Refused[present keys " + present.keySet() + ", changed under prefix " + changedUnderPrefix + "]";
        }
    }
}
