package dev.sextant.nodeboot.nodetpm;

import io.micronaut.context.annotation.ConfigurationProperties;

import java.nio.file.Path;

/**
 * Where the node's TPM is.
 *
 * @param address  {@code device:/dev/tpmrm0} on a node, {@code swtpm:HOST:PORT} in tests
 * @param eventLog the firmware's TCG event log, included in every document when present
 */
@ConfigurationProperties("sextant.tpm")
public record TpmSettings(String address, Path eventLog) {
}
