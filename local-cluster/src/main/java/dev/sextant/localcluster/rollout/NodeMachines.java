package dev.sextant.localcluster.rollout;

import java.nio.file.Path;

/**
 * The platform's part of a node image upgrade (docs/image-upgrades.md, "The rollout"): how a machine is
 * powered off and on and gets another boot disk. Its state disk, data volumes and TPM stay; only what it
 * boots changes, and the node proves the change itself when it comes back. {@code mini} implements it with
 * QEMU; a cloud would with its instance API.
 */
public interface NodeMachines {
    void powerOff(String node) throws Exception;

    /** The node boots {@code image} from its next power-on; the boot disk it had is kept for {@link #restoreBootDisk}. */
    void replaceBootDisk(String node, Path image) throws Exception;

    /** The node boots again the disk it had before the last {@link #replaceBootDisk}. */
    void restoreBootDisk(String node) throws Exception;

    void powerOn(String node) throws Exception;

    /** Where the node's console is kept, for the operator to read when it does not come back. */
    Path console(String node);
}
