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
 * and AK certificate in NV), a state disk, systemd credentials for the guest, the accelerator, and
 * whether the processes end with this JVM.
 */
public record NodeConfig(HostTools tools, Path image, Path workDir, List<Integer> guestPorts,
                         Optional<Path> tpmState, int memoryMiB, int cpus, Map<Integer, Integer> hostPorts,
                         Optional<Path> stateDisk, Map<String, String> credentials, Accel accel, Lifetime lifetime) {
    /** platform.md measured the boot with 2 vCPUs and 2 GiB under TCG. */
    public static final int DEFAULT_MEMORY_MIB = 2048;
    public static final int DEFAULT_CPUS = 2;
    /** systemd credential names: what systemd accepts, minus anything QEMU's option syntax would mangle. */
    private static final Pattern CREDENTIAL_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,254}");

    public NodeConfig {
        guestPorts = List.copyOf(guestPorts);
        hostPorts = Map.copyOf(hostPorts);
        credentials = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(credentials));
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
        credentials.forEach((name, value) -> {
            if (!CREDENTIAL_NAME.matcher(name).matches()) {
                throw new IllegalArgumentException("not a systemd credential name: \"" + name + "\"");
            }
        });
    }

    /** A node with a fresh TPM, 2 GiB and 2 vCPUs, under TCG, ending with this JVM. */
    public static NodeConfig of(HostTools tools, Path image, Path workDir, List<Integer> guestPorts) {
        return new NodeConfig(tools, image, workDir, guestPorts, Optional.empty(), DEFAULT_MEMORY_MIB, DEFAULT_CPUS,
                Map.of(), Optional.empty(), Map.of(), Accel.TCG, Lifetime.TIED_TO_JVM);
    }

    /** The same node, booting with a TPM whose state directory was made beforehand. */
    public NodeConfig withTpmState(Path stateDir) {
        return new NodeConfig(tools, image, workDir, guestPorts, Optional.of(stateDir), memoryMiB, cpus, hostPorts,
                stateDisk, credentials, accel, lifetime);
    }

    /** The same node with {@code memory} MiB of guest memory. */
    public NodeConfig withMemoryMiB(int memory) {
        return new NodeConfig(tools, image, workDir, guestPorts, tpmState, memory, cpus, hostPorts, stateDisk,
                credentials, accel, lifetime);
    }

    /** The same node, its guest ports forwarded from these 127.0.0.1 ports (guest port to host port). */
    public NodeConfig withHostPorts(Map<Integer, Integer> guestToHost) {
        return new NodeConfig(tools, image, workDir, guestPorts, tpmState, memoryMiB, cpus, guestToHost, stateDisk,
                credentials, accel, lifetime);
    }

    /** The same node with a raw file as its second disk (/dev/vdb in the guest). */
    public NodeConfig withStateDisk(Path disk) {
        return new NodeConfig(tools, image, workDir, guestPorts, tpmState, memoryMiB, cpus, hostPorts,
                Optional.of(disk), credentials, accel, lifetime);
    }

    /** The same node with these systemd credentials (SMBIOS type 11 strings), in order. */
    public NodeConfig withCredentials(Map<String, String> nameToValue) {
        return new NodeConfig(tools, image, workDir, guestPorts, tpmState, memoryMiB, cpus, hostPorts, stateDisk,
                nameToValue, accel, lifetime);
    }

    public NodeConfig withAccel(Accel accelerator) {
        return new NodeConfig(tools, image, workDir, guestPorts, tpmState, memoryMiB, cpus, hostPorts, stateDisk,
                credentials, accelerator, lifetime);
    }

    public NodeConfig withLifetime(Lifetime processes) {
        return new NodeConfig(tools, image, workDir, guestPorts, tpmState, memoryMiB, cpus, hostPorts, stateDisk,
                credentials, accel, processes);
    }
}
