package dev.sextant.imagebuilder;

import java.nio.file.Path;
import java.util.Optional;

/**
 * Whether nodes of one built image can take over nodes of another: a node upgraded to the new image
 * reads its TPM's state-disk record only if the old image's writer digest is listed in the new one
 * ({@code --upgrades-from}); otherwise it stays locked. An upgrade tool asks this before it touches a
 * node. The check reads the new build's {@link UpgradesFrom#OUT_FILE}, a copy of what the image holds.
 */
public final class UpgradePath {
    private UpgradePath() {}

    /** True when nodes on the image in {@code newImageDir} can read the records of the image in {@code oldImageDir}. */
    public static boolean lists(Path newImageDir, Path oldImageDir) throws BuildException {
        return refusal(newImageDir, oldImageDir).isEmpty();
    }

    /** Why the image in {@code newImageDir} cannot upgrade nodes of the image in {@code oldImageDir}; empty when it can. */
    public static Optional<String> refusal(Path newImageDir, Path oldImageDir) throws BuildException {
        return refusal(newImageDir, Predecessor.of(oldImageDir), "--upgrades-from " + oldImageDir);
    }

    /**
     * As {@link #refusal(Path, Path)} for an image known by its measurements only (the one a cluster runs);
     * {@code remedy} says how to build the new image so that it lists the old one.
     */
    public static Optional<String> refusal(Path newImageDir, Predecessor old, String remedy) throws BuildException {
        Predecessor next = Predecessor.of(newImageDir);
        if (next.writer().equals(old.writer()) || UpgradesFrom.stored(newImageDir).lists(old.writer())) {
            return Optional.empty();
        }
        return Optional.of("image " + next.imageVersion() + " (" + newImageDir + ") does not list image " + old.imageVersion()
                + " (writer " + old.writer() + ") under --upgrades-from: nodes on " + next.imageVersion()
                + " could not read their disk records and would stay locked; build it with " + remedy);
    }
}
