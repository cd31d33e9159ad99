package dev.sextant.joinapi.binding;

import dev.sextant.grpcsupport.Refusal;
import dev.sextant.joinapi.binding.BindingStore.NoneCreated;
import dev.sextant.joinapi.refusal.JoinRefusal;
import dev.sextant.serviceconfig.JoinServiceConfig;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

/**
 * The binding rules: one state disk, one node name and one role per machine (AK); each disk UUID and
 * node name owned by one machine; at most as many control planes as the cluster admits. A machine's
 * whole claim is ONE transaction (every key absent, then all written), so a refused attempt writes
 * nothing: a machine asking for a disk or name it is not entitled to leaves no squatted key behind and
 * spends nothing, and still can never hold two disks or two names, because the keys that say what it
 * owns ({@code bindings/machine/<ak>/...}) are written together with the ones that say who owns what.
 *
 * <p>When any key exists the store returns every present value in the same round trip, and the
 * rules are decided from that read: everything present equal to what this machine asks is a retried
 * join and succeeds (absent keys, possible after an older partial state, are written in a further
 * transaction); otherwise the first rule broken, in this order, refuses: one state disk per machine,
 * the state disk owned by another, one name per machine, the name owned by another, one role per
 * machine, a data volume owned by another, another name in its control-plane place. Every broken
 * rule is known from the one read, so the order only picks the answer: the machine's own facts first
 * (what it already owns is what it can do nothing about), disk before name before role, as a join's
 * inputs come; the same answers the earlier key-by-key writes gave.
 *
 * <p>A control plane's first join also takes a place under {@code control-planes/}: the admitted ones
 * are counted at revision R, the join is refused when the cluster is full, and the transaction holds
 * only if no control plane was admitted after R, so two racing for the last place cannot both win
 * (the loser counts again). The count comes before the transaction, so when the cluster is full a
 * machine without a place is refused by the limit whatever else it breaks; one admitted before (a
 * retried join) goes on. The limit is the value init wrote ({@code cluster/control-planes}, write-once,
 * so read once), or this service's setting where the cluster has none. A first join costs one round
 * trip, a control plane's two (three while the limit is not known yet); a retried worker's one.
 */
@Singleton
public class Bindings {
    /** Transactions per claim: retried after a racing control plane or an older partial state; each round trip is cheap. */
    static final int ATTEMPTS = 5;

    private final BindingStore store;
    private final int configuredLimit;
    /** The cluster's stored limit once read or written (0: not known yet); it never changes. */
    private volatile int storedLimit;

    @Inject
    public Bindings(BindingStore store, JoinServiceConfig config) {
        this(store, config.controlPlanes());
    }

    public Bindings(BindingStore store, int configuredLimit) {
        this.store = store;
        this.configuredLimit = configuredLimit;
    }

    /** A joining machine's claim (a first join, or a retried one), or the rule it breaks. */
    public void claim(MachineClaim claim) throws Refusal {
        settle(claim, claim.bindings(), claim.controlPlane());
    }

    /**
     * The init node's claim at start-up, with the cluster's control-plane limit: it is the first
     * control plane, admitted without counting. A limit stored already (by an earlier start) is the
     * cluster's, whatever this service's setting says now.
     */
    /** @return true when this call bound the init node's name (its join service's first start: at init); false when it was bound before */
    public boolean claimInitNode(MachineClaim claim) throws Refusal {
        Map<BindingKey, String> wanted = new LinkedHashMap<>(claim.bindings());
        wanted.put(BindingKey.controlPlaneLimit(), Integer.toString(configuredLimit));
        return settle(claim, wanted, false).contains(BindingKey.node(claim.nodeName()));
    }

    /** True if this machine owns the disk (its state disk or a volume bound to it at init). */
    public boolean ownsDisk(byte[] akName, String diskUuid) throws Refusal {
        return store.lookup(BindingKey.disk(diskUuid)).map(owner -> sameAk(owner, HexFormat.of().formatHex(akName))).orElse(false);
    }

    /** The node name this machine joined under; empty when it has none (the init node's older claims included). */
    public Optional<String> nodeName(byte[] akName) throws Refusal {
        return store.lookup(BindingKey.machineNode(HexFormat.of().formatHex(akName)));
    }

    /** The cluster's control-plane limit (the stored one, else this service's setting). */
    public int controlPlaneLimit() throws Refusal {
        if (storedLimit > 0) {
            return storedLimit;
        }
        Optional<String> stored = store.lookup(BindingKey.controlPlaneLimit());
        if (stored.isEmpty()) {
            return configuredLimit; // a cluster initialized before the key existed, or no init node yet
        }
        storedLimit = parseLimit(stored.get());
        return storedLimit;
    }

    /** @return the keys this call created (empty: all were bound to this machine before) */
    private Set<BindingKey> settle(MachineClaim claim, Map<BindingKey, String> wanted, boolean admit) throws Refusal {
        Map<BindingKey, String> remaining = new LinkedHashMap<>(wanted);
        for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
            OptionalLong guard = admit && remaining.containsKey(BindingKey.controlPlane(claim.ak()))
                    ? admission(claim) : OptionalLong.empty();
            if (store.createAll(remaining, guard) instanceof NoneCreated found) {
                refuseConflict(wanted, found.present());
                found.present().forEach((key, value) -> remember(key, value));
                remaining.keySet().removeAll(found.present().keySet());
                if (remaining.isEmpty()) {
                    return Set.of(); // a retried join: everything is bound to this machine already
                }
            } else {
                remaining.forEach(this::remember);
                return Set.copyOf(remaining.keySet());
            }
        }
        throw new Refusal(JoinRefusal.CLUSTER_STORE_UNAVAILABLE, "the cluster store (etcd) kept changing while this machine's "
                + "bindings were written (" + ATTEMPTS + " transactions); retry later");
    }

    /**
     * The revision a control plane's place is counted at, or empty for one admitted before (its key is
     * present, so the transaction can add no place). Refuses when the cluster is full.
     */
    private OptionalLong admission(MachineClaim claim) throws Refusal {
        BindingStore.Admitted admitted = store.controlPlanes();
        int limit = controlPlaneLimit();
        if (admitted.count() < limit) {
            return OptionalLong.of(admitted.revision());
        }
        if (store.lookup(BindingKey.controlPlane(claim.ak())).isPresent()) {
            return OptionalLong.empty(); // full, but this machine holds a place: a retried join
        }
        throw new Refusal(JoinRefusal.CONTROL_PLANE_LIMIT_REACHED, "the cluster admits at most " + limit
                + " control planes and has " + admitted.count() + ": this machine may join as a worker, or the cluster"
                + " must be initialized for more (sextant init --control-planes)");
    }

    /** The first rule the present values break, in the order of {@code wanted}; nothing when all are this machine's. */
    private static void refuseConflict(Map<BindingKey, String> wanted, Map<BindingKey, String> present) throws Refusal {
        for (Map.Entry<BindingKey, String> want : wanted.entrySet()) {
            BindingKey key = want.getKey();
            String found = present.get(key);
            if (found != null && !same(key, found, want.getValue())) {
                throw refusal(key, found, want.getValue());
            }
        }
    }

    private static boolean same(BindingKey key, String found, String wanted) {
        return switch (key.kind()) {
            case DISK, NODE -> sameAk(found, wanted);
            case CONTROL_PLANE_LIMIT -> true; // the cluster's, written once at the first init
            default -> found.equals(wanted);
        };
    }

    /** Why {@code key} bound to {@code found} refuses {@code wanted}; names disks, nodes and roles, never an AK. */
    private static Refusal refusal(BindingKey key, String found, String wanted) {
        return switch (key.kind()) {
            case MACHINE_DISK -> new Refusal(JoinRefusal.ONE_DISK_PER_MACHINE, "this machine already owns state disk " + found
                    + " and may not claim disk " + wanted + " (one state disk per machine; an operator must remove "
                    + "the old binding after a disk reset)");
            // PERMISSION_DENIED: the caller is not entitled to that key, whatever it retries.
            case DISK -> new Refusal(JoinRefusal.DISK_BOUND_ELSEWHERE, "disk " + key.subject() + " belongs to another machine");
            case MACHINE_NODE -> new Refusal(JoinRefusal.ONE_NAME_PER_MACHINE, "this machine already joined as node " + found
                    + " and may not take the name " + wanted + " (one node name per machine)");
            case CONTROL_PLANE -> new Refusal(JoinRefusal.ONE_NAME_PER_MACHINE, "this machine was admitted as control plane "
                    + found + " and may not take the name " + wanted + " (one node name per machine)");
            // ALREADY_EXISTS: a correctly working node would pick another name.
            case NODE -> new Refusal(JoinRefusal.NODE_NAME_TAKEN, "node name " + key.subject() + " is held by another machine");
            // Its member certificate names the role, and only control planes publish the cluster's shared names.
            case MACHINE_ROLE -> new Refusal(JoinRefusal.ONE_ROLE_PER_MACHINE, "this machine already joined as " + found
                    + " and may not join as " + wanted + " (one role per machine)");
            case CONTROL_PLANE_LIMIT -> throw new IllegalStateException("the control-plane limit is no conflict");
        };
    }

    private void remember(BindingKey key, String value) {
        if (key.kind() == BindingKey.Kind.CONTROL_PLANE_LIMIT) {
            try {
                storedLimit = parseLimit(value);
            } catch (Refusal malformed) {
                // read again, and refused, when a control plane asks for a place
            }
        }
    }

    private static int parseLimit(String value) throws Refusal {
        try {
            int limit = Integer.parseInt(value.strip());
            if (limit >= 1 && limit <= JoinServiceConfig.MAX_CONTROL_PLANES) {
                return limit;
            }
        } catch (NumberFormatException e) {
            // refused below
        }
        throw new Refusal(JoinRefusal.INTERNAL, "the cluster store's control-plane limit (cluster/control-planes) is not a number "
                + "from 1 to " + JoinServiceConfig.MAX_CONTROL_PLANES);
    }

    /** Constant-time, as every identity comparison here; stored AK names are lower-case hex, as {@link MachineClaim} writes them. */
    private static boolean sameAk(String stored, String ak) {
        return MessageDigest.isEqual(stored.toLowerCase(Locale.ROOT).getBytes(StandardCharsets.US_ASCII),
                ak.getBytes(StandardCharsets.US_ASCII));
    }
}
