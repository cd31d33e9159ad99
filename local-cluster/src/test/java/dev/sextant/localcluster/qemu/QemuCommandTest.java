package dev.sextant.localcluster.qemu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("The QEMU command line of a node")
class QemuCommandTest {
    private final HostTools tools = new HostTools(Path.of("/usr/bin/qemu-system-x86_64"), Path.of("/usr/bin/swtpm"),
            Path.of("/usr/share/OVMF/OVMF_CODE_4M.fd"), Path.of("/usr/share/OVMF/OVMF_VARS_4M.fd"));
    private final List<String> args = new QemuCommand(tools, Path.of("/img/image.raw"), Path.of("/w/OVMF_VARS.fd"),
            Path.of("/w/swtpm/swtpm.sock"), Path.of("/w/console.log"), Map.of(40001, 7443, 40000, 9000), 2048, 2)
            .arguments();
    private final String line = String.join(" ", args);

    @Test
    @DisplayName("has no default devices, so no empty DVD drive adds a boot attempt to PCR 4")
    void noDefaults() {
        assertTrue(args.contains("-nodefaults"));
        assertTrue(line.contains("-machine q35 -accel tcg"), line);
    }

    @Test
    @DisplayName("boots the image copy-on-write from a virtio disk pinned as the first boot option")
    void pinnedSnapshotDisk() {
        assertTrue(line.contains("file=/img/image.raw,format=raw,if=none,id=d0,snapshot=on"), line);
        assertTrue(line.contains("virtio-blk-pci,drive=d0,bootindex=1"), line);
    }

    @Test
    @DisplayName("uses OVMF without Secure Boot keys and the node's own copy of the variable store")
    void firmware() {
        assertTrue(line.contains("if=pflash,format=raw,readonly=on,file=/usr/share/OVMF/OVMF_CODE_4M.fd"), line);
        assertTrue(line.contains("if=pflash,format=raw,file=/w/OVMF_VARS.fd"), line);
    }

    @Test
    @DisplayName("attaches swtpm as a TIS TPM through its control socket")
    void tpm() {
        assertTrue(line.contains("socket,id=chrtpm,path=/w/swtpm/swtpm.sock"), line);
        assertTrue(line.contains("-tpmdev emulator,id=tpm0,chardev=chrtpm -device tpm-tis,tpmdev=tpm0"), line);
    }

    @Test
    @DisplayName("forwards each requested guest port from 127.0.0.1 only, on a NIC without an option ROM")
    void network() {
        int netdev = args.indexOf("-netdev");
        assertEquals("user,id=n0,hostfwd=tcp:127.0.0.1:40000-:9000,hostfwd=tcp:127.0.0.1:40001-:7443",
                args.get(netdev + 1));
        assertTrue(line.contains("virtio-net-pci,netdev=n0,romfile="), line);
    }

    @Test
    @DisplayName("writes the serial console to the node's console log and never reboots")
    void consoleAndNoReboot() {
        assertTrue(line.contains("-serial file:/w/console.log"), line);
        assertTrue(args.contains("-no-reboot"));
    }

    @Test
    @DisplayName("passes node settings as Sextant's SMBIOS type 11 strings (never as systemd credentials), commas escaped for QEMU, raw strings after them")
    void settingsAsSmbiosStrings() {
        List<String> withSettings = new QemuCommand(tools, Path.of("/img/image.raw"), Path.of("/w/OVMF_VARS.fd"),
                Path.of("/w/swtpm/swtpm.sock"), Path.of("/w/console.log"), Map.of(), 1536, 2, Accel.TCG,
                new java.util.LinkedHashMap<>(Map.of("sextant.join-endpoints", "10.0.2.2:4000,10.0.2.2:4001")),
                List.of("io.systemd.credential:tmpfiles.extra=w /dev/kmsg - - - - x"), java.util.Optional.empty(), List.of()).arguments();
        int smbios = withSettings.indexOf("-smbios");
        assertEquals("type=11,value=dev.sextant.setting:sextant.join-endpoints=10.0.2.2:4000,,10.0.2.2:4001",
                withSettings.get(smbios + 1));
        assertEquals("type=11,value=io.systemd.credential:tmpfiles.extra=w /dev/kmsg - - - - x",
                withSettings.get(withSettings.lastIndexOf("-smbios") + 1));
        assertTrue(!String.join(" ", withSettings).contains("-append"), "nothing goes on the kernel command line");
    }

    @Test
    @DisplayName("passes a multi-line setting (the EK CA's PEM) in the base64 form, which survives SMBIOS")
    void multiLineSettingAsBinary() {
        String pem = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";
        String value = QemuCommand.setting("sextant.ek-ca", pem);
        assertEquals("dev.sextant.setting.binary:sextant.ek-ca="
                + java.util.Base64.getEncoder().encodeToString(pem.getBytes(java.nio.charset.StandardCharsets.UTF_8)), value);
    }

    @Test
    @DisplayName("attaches the state disk as a second virtio disk that is no boot option")
    void stateDiskIsSecondVirtioDisk() {
        String withDisk = String.join(" ", new QemuCommand(tools, Path.of("/img/image.raw"), Path.of("/w/OVMF_VARS.fd"),
                Path.of("/w/swtpm/swtpm.sock"), Path.of("/w/console.log"), Map.of(), 1536, 2, Accel.TCG, Map.of(),
                List.of(), java.util.Optional.of(Path.of("/w/state-disk.raw")), List.of()).arguments());
        assertTrue(withDisk.contains("-drive file=/w/state-disk.raw,format=raw,if=none,id=d1 -device virtio-blk-pci,drive=d1 "),
                withDisk);
        assertTrue(withDisk.indexOf("drive=d0,bootindex=1") < withDisk.indexOf("drive=d1"), withDisk);
        assertTrue(!withDisk.contains("drive=d1,bootindex"), withDisk);
    }

    @Test
    @DisplayName("attaches each data volume after the state disk, written through (no snapshot) and no boot option")
    void dataVolumesAfterStateDisk() {
        String withVolume = String.join(" ", new QemuCommand(tools, Path.of("/img/image.raw"), Path.of("/w/OVMF_VARS.fd"),
                Path.of("/w/swtpm/swtpm.sock"), Path.of("/w/console.log"), Map.of(), 1536, 2, Accel.TCG, Map.of(),
                List.of(), java.util.Optional.of(Path.of("/w/state-disk.raw")), List.of(Path.of("/w/etcd-volume.raw")))
                .arguments());
        assertTrue(withVolume.contains("-drive file=/w/etcd-volume.raw,format=raw,if=none,id=v0 -device virtio-blk-pci,drive=v0 "),
                withVolume);
        assertTrue(withVolume.indexOf("drive=d1") < withVolume.indexOf("drive=v0"), withVolume);
        assertTrue(!withVolume.contains("etcd-volume.raw,format=raw,if=none,id=v0,snapshot"), withVolume);
    }

    @Test
    @DisplayName("uses the accelerator asked for (TCG unless KVM is chosen)")
    void accelerator() {
        assertTrue(line.contains("-accel tcg"), line);
        String kvm = String.join(" ", new QemuCommand(tools, Path.of("/i"), Path.of("/v"), Path.of("/s"), Path.of("/c"),
                Map.of(), 1536, 2, Accel.KVM, Map.of(), List.of(), java.util.Optional.empty(), List.of()).arguments());
        assertTrue(kvm.contains("-accel kvm"), kvm);
    }
}
