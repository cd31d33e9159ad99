package dev.sextant.e2e;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The QEMU command line of a node (platform.md, "QEMU line that boots a UKI with a clean,
 * predictable PCR 4"). The VM definition is part of what PCR 4 measures, so every flag here is
 * fixed: no default devices (an empty DVD drive would add a boot attempt to PCR 4), the boot disk
 * pinned by bootindex, and a NIC without a PXE option ROM.
 */
record QemuCommand(HostTools tools, Path image, Path ovmfVars, Path tpmSocket, Path console,
                   Map<Integer, Integer> hostToGuestPorts, int memoryMiB, int cpus) {

    List<String> arguments() {
        List<String> args = new ArrayList<>(List.of(tools.qemu().toString(),
                "-machine", "q35", "-accel", "tcg",
                "-m", Integer.toString(memoryMiB), "-smp", Integer.toString(cpus),
                "-nodefaults", "-display", "none", "-no-reboot",
                "-serial", "file:" + console,
                "-drive", "if=pflash,format=raw,readonly=on,file=" + tools.ovmfCode(),
                "-drive", "if=pflash,format=raw,file=" + ovmfVars,
                "-chardev", "socket,id=chrtpm,path=" + tpmSocket,
                "-tpmdev", "emulator,id=tpm0,chardev=chrtpm",
                "-device", "tpm-tis,tpmdev=tpm0",
                // snapshot=on: the image stays pristine, so one build serves any number of boots.
                "-drive", "file=" + image + ",format=raw,if=none,id=d0,snapshot=on",
                "-device", "virtio-blk-pci,drive=d0,bootindex=1",
                "-netdev", "user,id=n0" + hostForwards(),
                "-device", "virtio-net-pci,netdev=n0,romfile="));
        return List.copyOf(args);
    }

    private String hostForwards() {
        return hostToGuestPorts.entrySet().stream()
                .sorted(Map.Entry.comparingByKey())
                .map(e -> ",hostfwd=tcp:127.0.0.1:" + e.getKey() + "-:" + e.getValue())
                .collect(Collectors.joining());
    }
}
