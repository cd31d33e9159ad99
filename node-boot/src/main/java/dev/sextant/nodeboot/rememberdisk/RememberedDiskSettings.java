package dev.sextant.nodeboot.rememberdisk;

import io.micronaut.context.annotation.ConfigurationProperties;
import io.micronaut.core.bind.annotation.Bindable;

import java.util.List;

/**
 * How the node treats its TPM's record of the state disk. Both live in the image: the jar's
 * application.yml, overridden by the image's settings file that {@code sextant image build} writes
 * ({@code /opt/sextant/etc/sextant-node.yml}, named by sextant-node.service's MICRONAUT_CONFIG_FILES;
 * {@code --upgrades-from} fills the predecessor writers there). Both are measured: the image's root is
 * verity-protected, its root hash in PCR 11; neither can be set from the host (import-settings
 * passes no such name, and writes no other variable).
 *
 * @param insecureAdoptUnrecorded a node formatted before the TPM remembered disks has no record:
 *                                with this set, its disk is unlocked once as before (recovery as
 *                                the host's control-plane setting says), then recorded; warns at
 *                                every such boot. Never the default: a host could delete the record
 *                                to get the old behaviour back on an image that has it
 * @param predecessorWriters      writer digests (hex, {@link WritePolicy}) of the images this image
 *                                upgrades from: a record they wrote is accepted, and re-recorded under
 *                                this image's own writer once the disk opened (issue 39); empty: only
 *                                this image's own records
 */
@ConfigurationProperties("sextant.remembered-disk")
public record RememberedDiskSettings(
        @Bindable(defaultValue = "false") boolean insecureAdoptUnrecorded,
        @Bindable(defaultValue = "") List<String> predecessorWriters) {
    public static final String INSECURE_ADOPT = "sextant.remembered-disk.insecure-adopt-unrecorded";
    public static final String PREDECESSORS = "sextant.remembered-disk.predecessor-writers";

    public RememberedDiskSettings {
        predecessorWriters = predecessorWriters == null ? List.of()
                : predecessorWriters.stream().filter(w -> !w.isBlank()).map(String::trim).toList();
    }
}
