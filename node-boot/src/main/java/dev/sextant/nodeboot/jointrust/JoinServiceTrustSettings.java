package dev.sextant.nodeboot.jointrust;

import io.micronaut.context.annotation.ConfigurationProperties;
import io.micronaut.core.bind.annotation.Bindable;

import java.nio.file.Path;

/**
 * How the node checks the join service it takes its secrets from.
 *
 * @param ekCaFile                 PEM bundle of the EK CA the join service's AK must chain to: by
 *                                 default the one {@code sextant image build --ek-ca} put into the
 *                                 image's verity-protected root, so PCR 11 (and 4) covers it
 * @param hostEkCaFile             where the EK CA the host offers (SMBIOS setting {@code sextant.ek-ca})
 *                                 lands; measured by no PCR, so never trusted unless
 *                                 {@code insecureEkCaFromHost}
 * @param insecureEkCaFromHost     development only: also trust the host's EK CA (warns on every
 *                                 connection); never the default
 * @param insecureSkipVerification development only: accept any AK and any measurements (warns on
 *                                 every connection); never the default
 */
@ConfigurationProperties("sextant.node.join-service")
public record JoinServiceTrustSettings(
        @Bindable(defaultValue = IMAGE_EK_CA) Path ekCaFile,
        @Bindable(defaultValue = "/run/sextant/settings/sextant.ek-ca") Path hostEkCaFile,
        @Bindable(defaultValue = "false") boolean insecureEkCaFromHost,
        @Bindable(defaultValue = "false") boolean insecureSkipVerification) {
    /** Where the image builder puts the EK CA bundle (image-builder's NodeTree writes the same path). */
    public static final String IMAGE_EK_CA = "/usr/share/sextant/ek-ca.pem";
    static final String EK_CA_FILE = "sextant.node.join-service.ek-ca-file";
    static final String INSECURE_EK_CA_FROM_HOST = "sextant.node.join-service.insecure-ek-ca-from-host";
    static final String INSECURE = "sextant.node.join-service.insecure-skip-verification";
}
