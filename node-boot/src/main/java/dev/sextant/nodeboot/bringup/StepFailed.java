package dev.sextant.nodeboot.bringup;

/** A step of a bring-up past the node lock that failed; always fatal. */
final class StepFailed extends Exception {
    StepFailed(String message) {
        super(message);
    }
}
