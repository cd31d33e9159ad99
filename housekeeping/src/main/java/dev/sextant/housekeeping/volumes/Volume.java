package dev.sextant.housekeeping.volumes;

import java.nio.file.Path;

/** A block device that carries a Sextant tag, and where the tag was read. */
public record Volume(Path device, VolumeTags tags, String source) {
}
