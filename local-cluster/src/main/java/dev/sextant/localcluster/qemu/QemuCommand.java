package dev.sextant.localcluster.qemu;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The QEMU command line of a node (platform.md, "QEMU line that boots a UKI with a clean,
 * predictable PCR 4"). The VM definition is part of what PCR 4 measures, so every flag here is
 * fixed: no default devices (an empty DVD drive would add a boot attempt to PCR 4), the boot disk
 * pinned by bootindex, and a NIC without a PXE option ROM. Node settings travel as SMBIOS type 11
 * strings {@code dev.sextant.setting:NAME=VALUE} (multi-line values base64 in the {@code .binary}
 * form), not on the (measured) kernel command line and not as systemd credentials, which the image
 * does not import; raw OEM strings follow them verbatim. An optional state disk is the second
 * virtio disk ({@code /dev/vdb} in the guest); data volumes follow it (the guest finds them by their
 * GPT partition names, not their order).
 */
record QemuCommand(HostTools tools, Path image, Path ovmfVars, Path tpmSocket, Path console,
                   Map<Integer, Integer> hostToGuestPorts, int memoryMiB, int cpus, Accel accel,
                   Map<String, String> settings, List<String> rawOemStrings, Optional<Path> stateDisk,
                   List<Path> dataVolumes) {

    QemuCommand(HostTools tools, Path image, Path ovmfVars, Path tpmSocket, Path console,
                Map<Integer, Integer> hostToGuestPorts, int memoryMiB, int cpus) {
        this(tools, image, ovmfVars, tpmSocket, console, hostToGuestPorts, memoryMiB, cpus, Accel.TCG, Map.of(),
                List.of(), Optional.empty(), List.of());
    }

    List<String> arguments() {
        List<String> args = new ArrayList<>(List.of(tools.qemu().toString(),
                "-machine", "q35", "-accel", accel.qemuName(),
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
                "-device", "virtio-blk-pci,drive=d0,bootindex=1"));
        stateDisk.ifPresent(disk -> args.addAll(List.of(
                "-drive", "file=" + disk + ",format=raw,if=none,id=d1",
                "-device", "virtio-blk-pci,drive=d1")));
        for (int i = 0; i < dataVolumes.size(); i++) {
            String id = "v" + i;
            args.addAll(List.of("-drive", "file=" + dataVolumes.get(i) + ",format=raw,if=none,id=" + id,
                    "-device", "virtio-blk-pci,drive=" + id));
        }
        args.addAll(List.of(
                "-netdev", "user,id=n0" + hostForwards(),
                "-device", "virtio-net-pci,netdev=n0,romfile="));
        settings.forEach((name, value) -> args.addAll(List.of("-smbios", "type=11,value=" + escape(setting(name, value)))));
        rawOemStrings.forEach(s -> args.addAll(List.of("-smbios", "type=11,value=" + escape(s))));
        return List.copyOf(args);
    }

    /**
     * A printable value goes as it is; one with line breaks (a PEM certificate) in the base64 form,
     * which the image's import-settings decodes into the setting's file.
     */
    static String setting(String name, String value) {
        if (value.chars().anyMatch(c -> c < 0x20 || c == 0x7f)) {
            return "dev.sextant.setting.binary:" + name + "="
                    + Base64.getEncoder().encodeToString(value.getBytes(StandardCharsets.UTF_8));
        }
        return "dev.sextant.setting:" + name + "=" + value;
    }

    private String hostForwards() {
        return hostToGuestPorts.entrySet().stream()
                .sorted(Map.Entry.comparingByKey())
                .map(e -> ",hostfwd=tcp:127.0.0.1:" + e.getKey() + "-:" + e.getValue())
                .collect(Collectors.joining());
    }

    /** QEMU's option syntax separates with ','; a literal comma is written ",,". */
    private static String escape(String value) {
        return value.replace(",", ",,");
    }
}
