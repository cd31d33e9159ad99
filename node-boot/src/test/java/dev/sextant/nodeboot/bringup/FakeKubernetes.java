package dev.sextant.nodeboot.bringup;

import dev.sextant.nodeboot.kubernetes.ClusterSettings;
import dev.sextant.nodeboot.kubernetes.DriverResult;
import dev.sextant.nodeboot.kubernetes.JoinSettings;
import dev.sextant.nodeboot.kubernetes.KubernetesDriver;
import dev.sextant.nodeboot.kubernetes.RestartSettings;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** A Kubernetes driver that answers {@code answer} to every call and records the calls. */
public final class FakeKubernetes implements KubernetesDriver {
    public final List<Object> calls = new CopyOnWriteArrayList<>();
    private final DriverResult answer;

    public FakeKubernetes(DriverResult answer) {
        this.answer = answer;
    }

    /** An image without k3s. */
    public static FakeKubernetes absent() {
        return new FakeKubernetes(new DriverResult.NotInstalled("no k3s in this image"));
    }

    @Override
    public DriverResult initCluster(ClusterSettings settings) {
        calls.add(settings);
        return answer;
    }

    @Override
    public DriverResult joinCluster(JoinSettings settings) {
        calls.add(settings);
        return answer;
    }

    @Override
    public DriverResult restart(RestartSettings settings) {
        calls.add(settings);
        return answer;
    }

    @Override
    public boolean installed() {
        return !(answer instanceof DriverResult.NotInstalled);
    }
}
