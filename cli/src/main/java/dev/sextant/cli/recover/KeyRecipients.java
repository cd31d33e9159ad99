package dev.sextant.cli.recover;

import dev.sextant.operatorfiles.ClusterRecordFile;

import java.util.HexFormat;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Which verified machine may receive a disk's key. A machine that verifies proves only that it runs the
 * cluster's image on a TPM of the EK CA; the host chooses which disk it attaches. So the key goes to the
 * AK the operator's cluster record names for that disk, or, where the operator says so by the insecure
 * option, to any verified machine, with a warning every time.
 */
final class KeyRecipients {
    static final String INSECURE_OPTION = "--insecure-send-to-unrecorded-machine";

    private final Optional<ClusterRecordFile> record;
    private final Consumer<String> warnings;

    private KeyRecipients(Optional<ClusterRecordFile> record, Consumer<String> warnings) {
        this.record = record;
        this.warnings = warnings;
    }

    static KeyRecipients recorded(ClusterRecordFile record) {
        return new KeyRecipients(Optional.of(record), w -> { });
    }

    static KeyRecipients anyVerifiedMachine(Consumer<String> warnings) {
        return new KeyRecipients(Optional.empty(), warnings);
    }

    /** Why the machine with {@code akName} gets no key for {@code diskUuid}; empty: it may have it. */
    Optional<String> refusal(String diskUuid, byte[] akName) {
        String ak = HexFormat.of().formatHex(akName);
        if (record.isEmpty()) {
            warnings.accept("INSECURE (" + INSECURE_OPTION + "): sending the key of disk " + diskUuid
                    + " to AK " + ak + " without checking it against a cluster record");
            return Optional.empty();
        }
        Optional<ClusterRecordFile.Machine> owner = record.get().forDisk(diskUuid);
        if (owner.isEmpty()) {
            return Optional.of("the cluster record knows no machine for disk " + diskUuid + " (the node's AK is " + ak
                    + "); no key was derived or sent");
        }
        if (!owner.get().holdsAk(akName)) {
            return Optional.of("disk " + diskUuid + " belongs to AK " + owner.get().akName() + " in the cluster record, but"
                    + " this machine's AK is " + ak + " (the disk attached to another machine?); no key was derived or sent");
        }
        return Optional.empty();
    }
}
