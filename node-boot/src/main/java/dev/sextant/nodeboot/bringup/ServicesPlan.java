package dev.sextant.nodeboot.bringup;

import dev.sextant.nodeboot.deploy.ControlPlaneInput;
import dev.sextant.nodeboot.deploy.ServicesInput;

/** What happens to the cluster's own services (KMS, join service) on this node. */
public sealed interface ServicesPlan {
    /** Init: deploy them (as Kubernetes workloads, or as services of this node without Kubernetes). */
    record Deploy(ServicesInput input) implements ServicesPlan {
    }

    /** A control plane's join without Kubernetes: its etcd member joins the cluster's, then its KMS and join service start. */
    record JoinControlPlane(ControlPlaneInput input) implements ServicesPlan {
    }

    /** A rebooted control plane that ran them as node services starts them again from their files on the disk. */
    record RestartNodeLocal() implements ServicesPlan {
    }

    /** Nothing to do here (a joining worker, or Kubernetes restarts them itself). */
    record None() implements ServicesPlan {
    }
}
