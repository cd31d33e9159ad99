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

/**
 * Partitions whose GPT name is a tag. The kernel already parsed the partition table and reports
 * each name as PARTNAME in {@code /sys/class/block/PART/uevent}, so no table is read here.
 */
public record GptLabelSource(Path sysClassBlock, Path dev) implements VolumeSource {
    private static final Logger LOG = LoggerFactory.getLogger(GptLabelSource.class);

    @Override
    public List<Volume> volumes() throws IOException {
        List<Volume> found = new ArrayList<>();
        if (!Files.isDirectory(sysClassBlock)) {
            return found;
        }
        try (Stream<Path> devices = Files.list(sysClassBlock)) {
            for (Path device : devices.sorted().toList()) {
                List<String> uevent;
                try {
                    uevent = Files.readAllLines(device.resolve("uevent"));
                } catch (NoSuchFileException e) {
                    continue;
                }
                if (!uevent.contains("DEVTYPE=partition")) {
                    continue;
                }
                for (String line : uevent) {
                    if (line.startsWith("PARTNAME=")) {
                        try {
                            VolumeTags tags = VolumeTags.parse(line.substring("PARTNAME=".length()));
                            if (tags != null) {
                                found.add(new Volume(dev.resolve(device.getFileName().toString()), tags, "GPT name"));
                            }
                        } catch (IllegalArgumentException e) {
                            LOG.warn("Data volume: ignoring {}: {}", device.getFileName(), e.getMessage());
                        }
                    }
                }
            }
        }
        return found;
    }
}
