package dev.sextant.diskcrypt;

import io.micronaut.context.annotation.ConfigurationProperties;
import io.micronaut.core.bind.annotation.Bindable;
import java.nio.file.Path;

/**
 * Where the opened state disk goes.
 *
 * @param mapperName device-mapper name of the opened disk ({@code /dev/mapper/<name>})
 * @param mountPoint its ext4 file system; the default holds k3s's datastore, images and certificates
 *                   ({@code /var/lib/rancher/k3s}), the node's durable and secret state
 * @param enabled    false: re-key only, never open (a development host without device-mapper)
 */
@ConfigurationProperties("sextant.state-disk.mount")
public record StateMount(
        @Bindable(defaultValue = "sextant-state") String mapperName,
        @Bindable(defaultValue = "/var/lib/rancher") Path mountPoint,
        @Bindable(defaultValue = "true") boolean enabled) {

    public static StateMount defaults() {
        return new StateMount("sextant-state", Path.of("/var/lib/rancher"), true);
    }
}
