package dev.sextant.e2e;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * What to boot and how: the disk image (attached copy-on-write, never modified), the node's work
 * directory, the guest TCP ports to forward to free 127.0.0.1 ports, and optionally a TPM state
 * directory prepared in advance (for example with an EK certificate and AK certificate in NV).
 */
public record NodeConfig(HostTools tools, Path image, Path workDir, List<Integer> guestPorts,
                         Optional<Path> tpmState, int memoryMiB, int cpus) {
    /** platform.md measured the boot with 2 vCPUs and 2 GiB under TCG. */
    public static final int DEFAULT_MEMORY_MIB = 2048;
    public static final int DEFAULT_CPUS = 2;

    public NodeConfig {
        guestPorts = List.copyOf(guestPorts);
        if (memoryMiB < 256 || cpus < 1) {
            throw new IllegalArgumentException("a node needs at least 256 MiB and 1 vCPU, got "
                    + memoryMiB + " MiB and " + cpus);
        }
    }

    /** A node with a fresh TPM, 2 GiB and 2 vCPUs. */
    public static NodeConfig of(HostTools tools, Path image, Path workDir, List<Integer> guestPorts) {
        return new NodeConfig(tools, image, workDir, guestPorts, Optional.empty(), DEFAULT_MEMORY_MIB, DEFAULT_CPUS);
    }

    /** The same node, booting with a TPM whose state directory was made beforehand. */
    public NodeConfig withTpmState(Path stateDir) {
        return new NodeConfig(tools, image, workDir, guestPorts, Optional.of(stateDir), memoryMiB, cpus);
    }
}
