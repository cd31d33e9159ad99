package dev.sextant.nodeboot.bringup;

import dev.sextant.nodeboot.kubernetes.ClusterSettings;
import dev.sextant.nodeboot.kubernetes.JoinSettings;

/** What Kubernetes does on this node in this bring-up. */
public sealed interface KubernetesPlan {
    /** The first control plane starts a new cluster. */
    record Init(ClusterSettings cluster) implements KubernetesPlan {
    }

    /** A fresh node joins with its ticket's plan (k3s: server URL and token). */
    record Join(JoinSettings join) implements KubernetesPlan {
    }

    /** A rebooted node starts again what it ran before, from the state on its disk. */
    record Restart(NodeState.KubernetesRole previous) implements KubernetesPlan {
    }

    /** The cluster runs without Kubernetes (the ticket carried no plan). */
    record None() implements KubernetesPlan {
    }
}
