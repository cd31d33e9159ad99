package dev.sextant.localcluster.qemu;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * What to boot and how: the disk image (attached copy-on-write, never modified), the node's work
 * directory, the guest TCP ports to forward to 127.0.0.1 (to the host ports given, or to free
 * ones), optionally a TPM state directory prepared in advance (for example with an EK certificate
 * and AK certificate in NV), a state disk, the node's settings (SMBIOS OEM strings the image's
 * sextant-settings.service reads), the accelerator, whether the processes end with this JVM, and raw
 * OEM strings passed verbatim beside the settings and the UEFI variable store the firmware starts
 * with (both what any host controls: the attack suite plays a hostile host with them), and the data
 * volumes attached after the state disk.
 */
public record NodeConfig(HostTools tools, Path image, Path workDir, List<Integer> guestPorts,
                         Optional<Path> tpmState, int memoryMiB, int cpus, Map<Integer, Integer> hostPorts,
                         Optional<Path> stateDisk, Map<String, String> settings, Accel accel, Lifetime lifetime,
                         List<String> rawOemStrings, Optional<Path> firmwareVariables, List<Path> dataVolumes) {
    /** platform.md measured the boot with 2 vCPUs and 2 GiB under TCG. */
    public static final int DEFAULT_MEMORY_MIB = 2048;
    public static final int DEFAULT_CPUS = 2;
    /** Setting names: letters, digits, '.', '_' and '-', nothing QEMU's option syntax would mangle. */
    private static final Pattern SETTING_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,254}");

    public NodeConfig {
        guestPorts = List.copyOf(guestPorts);
        hostPorts = Map.copyOf(hostPorts);
        settings = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(settings));
        rawOemStrings = List.copyOf(rawOemStrings);
        dataVolumes = List.copyOf(dataVolumes);
        if (!dataVolumes.isEmpty() && stateDisk.isEmpty()) {
            // The image takes its state disk to be the second virtio disk; a volume there would be taken for it.
            throw new IllegalArgumentException("a data volume needs a state disk before it (the guest's /dev/vdb)");
        }
        if (memoryMiB < 256 || cpus < 1) {
            throw new IllegalArgumentException("a node needs at least 256 MiB and 1 vCPU, got "
                    + memoryMiB + " MiB and " + cpus);
        }
        for (Integer forwarded : hostPorts.keySet()) {
            if (!guestPorts.contains(forwarded)) {
                throw new IllegalArgumentException("host port given for guest port " + forwarded
                        + ", which is not forwarded; forwarded: " + guestPorts);
            }
        }
        settings.forEach((name, value) -> {
            if (!SETTING_NAME.matcher(name).matches()) {
                throw new IllegalArgumentException("not a setting name: \"" + name + "\"");
            }
        });
    }

    /** A node with a fresh TPM, 2 GiB and 2 vCPUs, under TCG, ending with this JVM. */
    public static NodeConfig of(HostTools tools, Path image, Path workDir, List<Integer> guestPorts) {
        return new NodeConfig(tools, image, workDir, guestPorts, Optional.empty(), DEFAULT_MEMORY_MIB, DEFAULT_CPUS,
                Map.of(), Optional.empty(), Map.of(), Accel.TCG, Lifetime.TIED_TO_JVM, List.of(), Optional.empty(), List.of());
    }

    /** The same node, booting with a TPM whose state directory was made beforehand. */
    public NodeConfig withTpmState(Path stateDir) {
        return new NodeConfig(tools, image, workDir, guestPorts, Optional.of(stateDir), memoryMiB, cpus, hostPorts,
                stateDisk, settings, accel, lifetime, rawOemStrings, firmwareVariables, dataVolumes);
    }

    /** The same node with {@code memory} MiB of guest memory. */
    public NodeConfig withMemoryMiB(int memory) {
        return new NodeConfig(tools, image, workDir, guestPorts, tpmState, memory, cpus, hostPorts, stateDisk,
                settings, accel, lifetime, rawOemStrings, firmwareVariables, dataVolumes);
    }

    /** The same node, its guest ports forwarded from these 127.0.0.1 ports (guest port to host port). */
    public NodeConfig withHostPorts(Map<Integer, Integer> guestToHost) {
        return new NodeConfig(tools, image, workDir, guestPorts, tpmState, memoryMiB, cpus, guestToHost, stateDisk,
                settings, accel, lifetime, rawOemStrings, firmwareVariables, dataVolumes);
    }

    /** The same node with a raw file as its second disk (/dev/vdb in the guest). */
    public NodeConfig withStateDisk(Path disk) {
        return new NodeConfig(tools, image, workDir, guestPorts, tpmState, memoryMiB, cpus, hostPorts,
                Optional.of(disk), settings, accel, lifetime, rawOemStrings, firmwareVariables, dataVolumes);
    }

    /**
     * The same node with one more raw file attached after the state disk, a data volume the node finds by the
     * tag in its GPT partition name (never by its position).
     */
    public NodeConfig withDataVolume(Path disk) {
        List<Path> volumes = new java.util.ArrayList<>(dataVolumes);
        volumes.add(disk);
        return new NodeConfig(tools, image, workDir, guestPorts, tpmState, memoryMiB, cpus, hostPorts, stateDisk,
                settings, accel, lifetime, rawOemStrings, firmwareVariables, volumes);
    }

    /** The same node with these settings (SMBIOS type 11 strings), in order. */
    public NodeConfig withSettings(Map<String, String> nameToValue) {
        return new NodeConfig(tools, image, workDir, guestPorts, tpmState, memoryMiB, cpus, hostPorts, stateDisk,
                nameToValue, accel, lifetime, rawOemStrings, firmwareVariables, dataVolumes);
    }

    public NodeConfig withAccel(Accel accelerator) {
        return new NodeConfig(tools, image, workDir, guestPorts, tpmState, memoryMiB, cpus, hostPorts, stateDisk,
                settings, accelerator, lifetime, rawOemStrings, firmwareVariables, dataVolumes);
    }

    public NodeConfig withLifetime(Lifetime processes) {
        return new NodeConfig(tools, image, workDir, guestPorts, tpmState, memoryMiB, cpus, hostPorts, stateDisk,
                settings, accel, processes, rawOemStrings, firmwareVariables, dataVolumes);
    }

    /** The same node with these SMBIOS type 11 strings passed verbatim, after its settings. */
    public NodeConfig withRawOemStrings(List<String> strings) {
        return new NodeConfig(tools, image, workDir, guestPorts, tpmState, memoryMiB, cpus, hostPorts, stateDisk,
                settings, accel, lifetime, strings, firmwareVariables, dataVolumes);
    }

    /** The same node, its firmware starting from a copy of this UEFI variable store instead of OVMF's empty one. */
    public NodeConfig withFirmwareVariables(Path varsFile) {
        return new NodeConfig(tools, image, workDir, guestPorts, tpmState, memoryMiB, cpus, hostPorts, stateDisk,
                settings, accel, lifetime, rawOemStrings, Optional.of(varsFile), dataVolumes);
    }
}
