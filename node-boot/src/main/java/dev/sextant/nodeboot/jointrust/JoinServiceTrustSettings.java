package dev.sextant.nodeboot.jointrust;

import io.micronaut.context.annotation.ConfigurationProperties;
import io.micronaut.core.bind.annotation.Bindable;

import java.nio.file.Path;

/**
 * How the node checks the join service it takes its secrets from.
 *
 * @param ekCaFile                 PEM bundle of the EK CA the join service's AK must chain to; the
 *                                 default is the setting the host booted the node with
 * @param insecureSkipVerification development only: accept any AK and any measurements (warns on
 *                                 every connection); never the default
 */
@ConfigurationProperties("sextant.node.join-service")
public record JoinServiceTrustSettings(
        @Bindable(defaultValue = "/run/sextant/settings/sextant.ek-ca") Path ekCaFile,
        @Bindable(defaultValue = "false") boolean insecureSkipVerification) {
    static final String EK_CA_FILE = "sextant.node.join-service.ek-ca-file";
    static final String INSECURE = "sextant.node.join-service.insecure-skip-verification";
}
