package dev.sextant.housekeeping.volumes;

import io.micronaut.context.annotation.ConfigurationProperties;
import io.micronaut.core.bind.annotation.Bindable;

import java.nio.file.Path;
import java.time.Duration;

/**
 * Which data volume a control-plane node looks for and where the datastore goes.
 *
 * @param cluster        the cluster name in the volume tags; volumes of any other cluster are never touched
 * @param role           the role in the tags (cp: control-plane datastore)
 * @param zone           this node's zone; volumes of other zones are not candidates
 * @param sysRoot        sysfs (tests point it at a fake tree)
 * @param devDir         where device nodes are
 * @param mountPoint     where the mounter puts the volume; {@link DataVolumes#mount} names it for each node
 *                       (node-boot: a control plane's etcd data dir), so the default serves only this module's tests
 * @param mapperName     the dm-crypt mapping name
 * @param workDir        tmpfs directory for detached LUKS header copies (0700)
 * @param retryInterval  how often a node without a volume looks again (losing a race is normal)
 * @param pbkdfMemoryKib argon2id memory per key slot (KiB)
 * @param pbkdfIterations argon2id iterations; 0 lets cryptsetup benchmark for 2 s. The defaults are argon2id's
 *                       least cost, as for the state disk (disk-crypt's {@code StateDiskSettings} says why):
 *                       a volume's key is HKDF bytes, never a passphrase
 */
@ConfigurationProperties("sextant.data-volume")
public record DataVolumeSettings(
        @Bindable(defaultValue = "false") boolean enabled,
        @Bindable(defaultValue = "") String cluster,
        @Bindable(defaultValue = "cp") String role,
        @Bindable(defaultValue = "") String zone,
        @Bindable(defaultValue = "/sys") Path sysRoot,
        @Bindable(defaultValue = "/dev") Path devDir,
        @Bindable(defaultValue = "/var/lib/rancher/k3s/server/db") Path mountPoint,
        @Bindable(defaultValue = "sextant-data") String mapperName,
        @Bindable(defaultValue = "/run/sextant/luks-data") Path workDir,
        @Bindable(defaultValue = "60s") Duration retryInterval,
        @Bindable(defaultValue = "8192") int pbkdfMemoryKib,
        @Bindable(defaultValue = "4") int pbkdfIterations) {

    /** These settings with the volume mounted at {@code mountPoint}. */
    public DataVolumeSettings withMountPoint(Path mountPoint) {
        return new DataVolumeSettings(enabled, cluster, role, zone, sysRoot, devDir, mountPoint, mapperName, workDir,
                retryInterval, pbkdfMemoryKib, pbkdfIterations);
    }
}
