package dev.sextant.nodeboot.rememberdisk;

/** What reading the TPM's record of the state disk gave. */
public sealed interface Recall {
    /** A record the genuine image wrote (its index's public area checked): the disk the node may unlock. */
    record Remembered(RememberedDisk disk) implements Recall {
    }

    /** No record at all: the index is not defined, or defined and never written (a node formatted before records). */
    record NothingRecorded(String why) implements Recall {
    }

    /** Something is at the index that the genuine image did not write, or cannot be read: no disk is unlocked. */
    record Refused(String why) implements Recall {
    }
}
