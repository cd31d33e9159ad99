package dev.sextant.nodeboot.nodelock;

/** What {@link NodeLock#tryLockOnce} gave: the lock, or the name of the path that took it first. */
public sealed interface LockResult {
    record Acquired(LockHolder by) implements LockResult {
    }

    record AlreadyLocked(LockHolder by) implements LockResult {
        public String message() {
            return "node is already locked by " + by.label();
        }
    }

    default boolean won() {
        return this instanceof Acquired;
    }
}
