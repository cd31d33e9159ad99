package dev.sextant.joinapi.binding;

import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Everything one machine (its AK) asks to own at its first join or at init: its state disk, its node
 * name, its role and, for the init node only, further data-volume disks. Written in one transaction.
 *
 * @param ak           the machine's AK name in lower-case hex
 * @param controlPlane the role: a control plane (also admitted under {@code control-planes/}) or a worker
 * @param dataVolumes  the init node's data volumes (empty for a joining machine)
 */
public record MachineClaim(String ak, boolean controlPlane, String stateDisk, String nodeName, List<String> dataVolumes) {
    public static final String CONTROL_PLANE = "control-plane";
    public static final String WORKER = "worker";

    public MachineClaim {
        Objects.requireNonNull(ak, "ak");
        Objects.requireNonNull(stateDisk, "stateDisk");
        Objects.requireNonNull(nodeName, "nodeName");
        dataVolumes = List.copyOf(dataVolumes);
    }

    /** A joining machine: a state disk and a node name, no data volumes. */
    public static MachineClaim joining(byte[] akName, boolean controlPlane, String stateDisk, String nodeName) {
        return new MachineClaim(HexFormat.of().formatHex(akName), controlPlane, stateDisk, nodeName, List.of());
    }

    public String role() {
        return controlPlane ? CONTROL_PLANE : WORKER;
    }

    /**
     * The keys this machine asks for and their values, in the order the refusal rules are checked: its
     * own one-per-machine facts and the ownership of what it names, disk before name before role, then
     * its data volumes and its control-plane place.
     */
    public Map<BindingKey, String> bindings() {
        Map<BindingKey, String> wanted = new LinkedHashMap<>();
        wanted.put(BindingKey.machineDisk(ak), stateDisk);
        wanted.put(BindingKey.disk(stateDisk), ak);
        wanted.put(BindingKey.machineNode(ak), nodeName);
        wanted.put(BindingKey.node(nodeName), ak);
        wanted.put(BindingKey.machineRole(ak), role());
        for (String volume : dataVolumes) {
            wanted.put(BindingKey.disk(volume), ak);
        }
        if (controlPlane) {
            wanted.put(BindingKey.controlPlane(ak), nodeName);
        }
        return wanted;
    }
}
