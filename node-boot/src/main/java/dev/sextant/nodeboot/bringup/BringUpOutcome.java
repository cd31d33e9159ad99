package dev.sextant.nodeboot.bringup;

import dev.sextant.nodeboot.deploy.EtcdStanding;
import dev.sextant.nodeboot.kubernetes.DriverResult;
import dev.sextant.nodeboot.nodelock.LockHolder;

/** How a bring-up ended. */
public sealed interface BringUpOutcome {
    /** The node is a cluster member; what the status line says. */
    record Bootstrapped(BootstrapStatus.Role role, DriverResult kubernetes, Via via, String since, byte[] kubeconfig,
                        EtcdStanding etcd) implements BringUpOutcome {
    }

    /** Another path holds the node lock: nothing was touched. */
    record LockLost(LockHolder holder) implements BringUpOutcome {
        public String message() {
            return "node is already locked by " + holder.label();
        }
    }

    /** Fatal after the point of no return; the failure handler has taken over (reset if this boot formatted, reboot). */
    record Failed(String reason) implements BringUpOutcome {
    }
}
