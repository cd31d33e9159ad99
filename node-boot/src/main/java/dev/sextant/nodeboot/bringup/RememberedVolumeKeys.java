package dev.sextant.nodeboot.bringup;

import dev.sextant.housekeeping.volumes.DataVolumeMounter;
import dev.sextant.housekeeping.volumes.Volume;

import java.io.IOException;
import java.util.Base64;
import java.util.Map;

/**
 * A control plane's data volume keys as its state disk remembers them (LUKS UUID to key, {@link
 * NodeState#dataVolumeKeys}). A node that opened a volume before takes only that volume again: a blank
 * disk in its place would be formatted and give etcd an empty data dir under this member's name, and
 * another control plane's volume (which the KMS would key just as well, by its UUID) would give it that
 * member's data. Either makes the node wait, saying why, until its own volume is back. A node that never
 * opened one takes the first: its key comes from {@code fresh} and is added to {@code remembered}, which
 * the caller saves to the state disk.
 */
public final class RememberedVolumeKeys implements DataVolumeMounter.VolumeKeys {
    private final Map<String, String> remembered;
    private final DataVolumeMounter.VolumeKeys fresh;

    public RememberedVolumeKeys(Map<String, String> remembered, DataVolumeMounter.VolumeKeys fresh) {
        this.remembered = remembered;
        this.fresh = fresh;
    }

    @Override
    public byte[] keyFor(String luksUuid) throws IOException {
        String known = remembered.get(luksUuid);
        if (known != null) {
            return Base64.getDecoder().decode(known);
        }
        if (!remembered.isEmpty()) {
            throw new IOException("the volume offered is LUKS " + luksUuid + ", not the one this control plane opened"
                    + " before (" + String.join(", ", remembered.keySet()) + ", remembered on its state disk): another"
                    + " member's data is not this member's; put its own volume back");
        }
        byte[] key = fresh.keyFor(luksUuid);
        remembered.put(luksUuid, Base64.getEncoder().encodeToString(key));
        return key;
    }

    @Override
    public void admitNew(Volume volume) throws IOException {
        if (!remembered.isEmpty()) {
            throw new IOException(volume.device() + " (" + volume.tags() + ") is blank, and this control plane opened"
                    + " LUKS " + String.join(", ", remembered.keySet()) + " before (remembered on its state disk): etcd"
                    + " would start with an empty data dir under this member's name; put its own volume back");
        }
    }
}
