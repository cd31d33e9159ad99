package dev.sextant.localcluster.mini.files;

import dev.sextant.localcluster.mini.node.EtcdVolumeTag;
import dev.sextant.localcluster.qemu.HostTools;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A new data volume for a mini control plane: a sparse raw file with a GPT whose one partition is named by
 * the volume's tag. That is all the host writes; the node LUKS-formats the partition on first use, under a
 * key derived from the master secret, so nothing the host put there is ever trusted. The GPT comes from
 * util-linux's {@code sfdisk} on the plain file (no loop device, no root).
 */
public final class VolumeDiskFile {
    /** Sparse: etcd's data for a mini cluster is a few MiB; LUKS2's header takes 16. */
    public static final long BYTES = 256L << 20;

    private VolumeDiskFile() {
    }

    /** Writes {@code file} afresh (an earlier one is replaced): {@link #BYTES} long, one partition named {@code tag}. */
    public static Path create(Path file, EtcdVolumeTag tag) throws IOException, InterruptedException {
        Files.createDirectories(file.toAbsolutePath().getParent());
        Files.deleteIfExists(file);
        try (RandomAccessFile raw = new RandomAccessFile(file.toFile(), "rw")) {
            raw.setLength(BYTES);
        }
        // One partition over the whole disk (sfdisk aligns it at 1 MiB); the name is the tag, quoted for sfdisk.
        String script = "label: gpt\ntype=L, name=\"" + tag + "\"\n";
        Process sfdisk = new ProcessBuilder(List.of(sfdisk().toString(), "--quiet", "--no-reread", "--no-tell-kernel",
                file.toString())).redirectErrorStream(true).start();
        sfdisk.getOutputStream().write(script.getBytes(StandardCharsets.US_ASCII));
        sfdisk.getOutputStream().close();
        String output = new String(sfdisk.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        if (!sfdisk.waitFor(60, TimeUnit.SECONDS)) {
            sfdisk.destroyForcibly();
            throw new IOException("sfdisk did not finish writing the partition table of " + file);
        }
        if (sfdisk.exitValue() != 0) {
            throw new IOException("sfdisk could not write the partition table of " + file + " (exit "
                    + sfdisk.exitValue() + "): " + output);
        }
        return file;
    }

    /** On PATH, or in /usr/sbin and /sbin, which a user's PATH may lack. */
    private static Path sfdisk() throws IOException {
        return HostTools.onPath("sfdisk")
                .or(() -> Stream.of(Path.of("/usr/sbin/sfdisk"), Path.of("/sbin/sfdisk")).filter(Files::isExecutable).findFirst())
                .orElseThrow(() -> new IOException("sfdisk not found (Debian package fdisk): mini writes each control"
                        + " plane's data volume's partition table with it"));
    }
}
