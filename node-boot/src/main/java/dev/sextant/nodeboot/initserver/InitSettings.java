package dev.sextant.nodeboot.initserver;

import io.micronaut.context.annotation.ConfigurationProperties;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.core.bind.annotation.Bindable;

import java.nio.file.Path;

/**
 * Inputs of the init path given to the node at boot.
 *
 * @param secretHashFile "sha256:SALT_HEX:DIGEST_HEX" with DIGEST = SHA-256(SALT || init secret)
 * @param logFile        the bootstrapper's own log, returned on failure when journalctl is absent
 * @param useJournalctl  prefer the systemd journal (false in tests: deterministic content)
 * @param nodeName       Kubernetes node name; empty means the content of nodeNameFile, else the host name
 * @param nodeNameFile   file holding the node name (a systemd credential on a QEMU node)
 */
@ConfigurationProperties("sextant.init")
public record InitSettings(
        @Bindable(defaultValue = "/run/sextant/init-secret.hash") Path secretHashFile,
        @Bindable(defaultValue = "/var/log/sextant-node-boot.log") Path logFile,
        @Bindable(defaultValue = "true") boolean useJournalctl,
        @Bindable(defaultValue = "") String nodeName,
        @Nullable Path nodeNameFile) {
}
