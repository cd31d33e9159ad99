package dev.sextant.localcluster.qemu;

/**
 * How QEMU runs the guest. TCG works everywhere; KVM is faster where it works, but on hosts like
 * the ones platform.md measured the guest hangs at "Probing EDD", so TCG is the default.
 */
public enum Accel {
    TCG, KVM;

    String qemuName() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
