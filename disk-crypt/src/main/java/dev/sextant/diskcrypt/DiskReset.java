package dev.sextant.diskcrypt;

/** Clears the state disk's "initialized" marker, so the next boot starts from a fresh disk. */
@FunctionalInterface
public interface DiskReset {
    void markForReset() throws Exception;
}
