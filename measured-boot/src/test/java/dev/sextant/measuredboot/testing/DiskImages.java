package dev.sextant.measuredboot.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/** Builds FAT volumes and GPT disks without mounting: mkfs.vfat -C, mtools, sgdisk and dd. */
public final class DiskImages {
    /** The ESP starts at 1 MiB, as sgdisk and systemd-repart align it. */
    public static final long ESP_OFFSET = 2048 * 512L;

    private DiskImages() {
    }

    /** A FAT volume of {@code kib} KiB with FAT width {@code bits} holding {@code files} (paths like EFI/BOOT/X.EFI). */
    public static Path fat(Path dir, int bits, int kib, Map<String, byte[]> files) throws IOException, InterruptedException {
        Tools.require("mkfs.vfat", "mmd", "mcopy");
        Path img = dir.resolve("fat" + bits + "-" + System.nanoTime() + ".img");
        Tools.run(dir, "mkfs.vfat", "-C", "-F", Integer.toString(bits), "-n", "ESP", img.toString(),
                Integer.toString(kib)).ok();
        for (Map.Entry<String, byte[]> f : files.entrySet()) {
            String[] parts = f.getKey().split("/");
            StringBuilder p = new StringBuilder();
            for (int i = 0; i < parts.length - 1; i++) {
                p.append('/').append(parts[i]);
                Tools.run(dir, "mmd", "-D", "s", "-i", img.toString(), "::" + p); // "-D s": skip if it exists
            }
            Path src = dir.resolve("payload-" + System.nanoTime());
            Files.write(src, f.getValue());
            Tools.run(dir, "mcopy", "-i", img.toString(), src.toString(), "::/" + f.getKey()).ok();
            Files.delete(src);
        }
        return img;
    }

    /** A GPT disk with {@code esp} as partition 1 (type EF00) at 1 MiB. */
    public static Path gptDisk(Path dir, Path esp) throws IOException, InterruptedException {
        Tools.require("sgdisk", "dd");
        long espBytes = Files.size(esp);
        Path disk = dir.resolve("disk-" + System.nanoTime() + ".raw");
        try (var f = new java.io.RandomAccessFile(disk.toFile(), "rw")) {
            f.setLength(ESP_OFFSET + espBytes + 2 * 1024 * 1024);
        }
        Tools.run(dir, "sgdisk", "-n", "1:2048:+" + (espBytes / 1024) + "K", "-t", "1:EF00", "-c", "1:esp",
                "-n", "2:0:0", "-t", "2:8300", disk.toString()).ok();
        Tools.run(dir, "dd", "if=" + esp, "of=" + disk, "bs=512", "seek=2048", "conv=notrunc", "status=none").ok();
        return disk;
    }
}
