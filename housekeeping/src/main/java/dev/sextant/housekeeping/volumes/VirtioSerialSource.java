package dev.sextant.housekeeping.volumes;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/** Whole disks whose virtio serial ({@code /sys/block/NAME/serial}, QEMU's {@code serial=}) is a tag. */
public record VirtioSerialSource(Path sysBlock, Path dev) implements VolumeSource {
    private static final Logger LOG = LoggerFactory.getLogger(VirtioSerialSource.class);

    @Override
    public List<Volume> volumes() throws IOException {
        List<Volume> found = new ArrayList<>();
        if (!Files.isDirectory(sysBlock)) {
            return found;
        }
        try (Stream<Path> disks = Files.list(sysBlock)) {
            for (Path disk : disks.sorted().toList()) {
                String serial;
                try {
                    serial = Files.readString(disk.resolve("serial"));
                } catch (NoSuchFileException e) {
                    continue;
                }
                try {
                    VolumeTags tags = VolumeTags.parse(serial);
                    if (tags != null) {
                        found.add(new Volume(dev.resolve(disk.getFileName().toString()), tags, "virtio serial"));
                    }
                } catch (IllegalArgumentException e) {
                    LOG.warn("Data volume: ignoring {}: {}", disk.getFileName(), e.getMessage());
                }
            }
        }
        return found;
    }
}
