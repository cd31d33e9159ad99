package dev.sextant.housekeeping.volumes;

import java.io.IOException;
import java.util.List;

/**
 * Lists the tagged volumes this node can see. Two implementations exist because both tag carriers
 * exist on QEMU nodes: the virtio disk serial and the GPT partition name. A cloud provider (EC2
 * DescribeVolumes filtered by tag and zone, then AttachVolume) would be a third; none is written
 * because none can run here, and on a cloud the attach call, not this listing, is the atomic claim.
 */
public interface VolumeSource {
    List<Volume> volumes() throws IOException;
}
