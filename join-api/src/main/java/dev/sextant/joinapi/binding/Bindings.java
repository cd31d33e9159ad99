package dev.sextant.joinapi.binding;

import dev.sextant.grpcsupport.Refusal;
import dev.sextant.joinapi.binding.BindingStore.Kind;
import dev.sextant.joinapi.refusal.JoinRefusal;
import jakarta.inject.Singleton;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;

/**
 * The binding rules: one state disk and one node name per machine (AK), and each disk UUID and node
 * name owned by one machine. Binding the same things again for the same machine is a no-op, so a
 * retried join works.
 *
 * <p>The machine's own reverse binding (AK → disk, AK → name) is written before the forward one: a
 * machine that tries a UUID or name it is not entitled to then spends its single slot, so one AK can
 * hold at most one state disk and one name, whatever it tries. Writing the forward binding first
 * would let every refused attempt leave a squatted UUID behind.
 */
@Singleton
public class Bindings {
    private final BindingStore store;

    public Bindings(BindingStore store) {
        this.store = store;
    }

    /** Binds a joining machine's state disk and node name to it, or refuses saying which rule it breaks. */
    public void claimNode(byte[] akName, String stateDiskUuid, String nodeName) throws Refusal {
        String ak = hex(akName);
        claimStateDisk(ak, stateDiskUuid);
        claimName(ak, nodeName);
    }

    /**
     * Binds the role a machine joins in ({@code control-plane} or {@code worker}): its member
     * certificate names that role, and only control planes may publish the cluster's shared
     * discovery names, so a machine that joined as a worker cannot come back as a control plane.
     */
    public void claimRole(byte[] akName, String role) throws Refusal {
        String owned = store.bind(Kind.MACHINE_ROLE, hex(akName), role);
        if (!owned.equals(role)) {
            throw new Refusal(JoinRefusal.ONE_ROLE_PER_MACHINE, "this machine already joined as " + owned
                    + " and may not join as " + role + " (one role per machine)");
        }
    }

    /** Binds further disks (the init node's data volumes) to the machine: forward bindings only. */
    public void claimDataVolumes(byte[] akName, List<String> diskUuids) throws Refusal {
        String ak = hex(akName);
        for (String uuid : diskUuids) {
            claimDisk(ak, uuid);
        }
    }

    /** True if this machine owns the disk (its state disk or a volume bound to it at init). */
    public boolean ownsDisk(byte[] akName, String diskUuid) throws Refusal {
        return store.lookup(Kind.DISK, diskUuid).map(owner -> sameAk(owner, hex(akName))).orElse(false);
    }

    private void claimStateDisk(String ak, String uuid) throws Refusal {
        String owned = store.bind(Kind.MACHINE_DISK, ak, uuid);
        if (!owned.equals(uuid)) {
            throw new Refusal(JoinRefusal.ONE_DISK_PER_MACHINE, "this machine already owns state disk " + owned
                    + " and may not claim disk " + uuid + " (one state disk per machine; an operator must remove "
                    + "the old binding after a disk reset)");
        }
        claimDisk(ak, uuid);
    }

    /**
     * PERMISSION_DENIED for a disk of another machine (the caller is not entitled to that key,
     * whatever it retries).
     */
    private void claimDisk(String ak, String uuid) throws Refusal {
        if (!sameAk(store.bind(Kind.DISK, uuid, ak), ak)) {
            throw new Refusal(JoinRefusal.DISK_BOUND_ELSEWHERE, "disk " + uuid + " belongs to another machine");
        }
    }

    /**
     * ALREADY_EXISTS for a node name another machine holds (a correctly working node would pick
     * another name); PERMISSION_DENIED for a second name of one machine.
     */
    private void claimName(String ak, String nodeName) throws Refusal {
        String owned = store.bind(Kind.MACHINE_NODE, ak, nodeName);
        if (!owned.equals(nodeName)) {
            throw new Refusal(JoinRefusal.ONE_NAME_PER_MACHINE, "this machine already joined as node " + owned
                    + " and may not take the name " + nodeName + " (one node name per machine)");
        }
        if (!sameAk(store.bind(Kind.NODE, nodeName, ak), ak)) {
            throw new Refusal(JoinRefusal.NODE_NAME_TAKEN, "node name " + nodeName + " is held by another machine");
        }
    }

    /** Constant-time, as every identity comparison here; stored names are lower-case hex, as {@link #hex} writes them. */
    private static boolean sameAk(String stored, String ak) {
        return MessageDigest.isEqual(stored.toLowerCase(Locale.ROOT).getBytes(StandardCharsets.US_ASCII),
                ak.getBytes(StandardCharsets.US_ASCII));
    }

    private static String hex(byte[] akName) {
        return HexFormat.of().formatHex(akName);
    }
}
