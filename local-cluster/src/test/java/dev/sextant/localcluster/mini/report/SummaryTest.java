package dev.sextant.localcluster.mini.report;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sextant.localcluster.mini.node.EtcdMemberState;
import dev.sextant.localcluster.mini.node.NodeRole;
import dev.sextant.localcluster.mini.node.NodeStatusLine;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("The summary mini up prints")
class SummaryTest {
    private final Path kubeconfig = Path.of("/m/kubeconfig");

    @Test
    @DisplayName("is an aligned table of node, role, verified PCRs, state disk, membership, etcd member, via, since and"
            + " the image version the node reports (unknown from a node that names none), then Kubernetes")
    void table() {
        Summary summary = new Summary(List.of(
                Summary.Row.of("control-plane-0", NodeRole.CONTROL_PLANE, "PCR 4 9 11 12 13 15", status(
                        "role=control-plane disk=encrypted:abc kubernetes=started via=init since=2026-11-24T03:00:00Z etcd=member image=1.4.0"),
                        new EtcdMemberState("leader", "healthy")),
                Summary.Row.of("control-plane-1", NodeRole.CONTROL_PLANE, "PCR 4 9 11 12 13 15", status(
                        "role=control-plane disk=encrypted:cde kubernetes=started via=join since=2026-11-24T03:02:00Z etcd=member image=1.4.0"),
                        new EtcdMemberState("follower", "healthy")),
                Summary.Row.of("worker-0", NodeRole.WORKER, "PCR 4 9 11 12 13 15", status(
                        "role=worker disk=encrypted:def kubernetes=started via=rejoin since=2026-11-24T03:05:00Z"),
                        EtcdMemberState.NONE)),
                "Kubernetes: not installed");
        assertEquals(List.of(
                "NODE             ROLE           VERIFIED PCRS (aTLS)  STATE DISK ENCRYPTED  JOINED                         ETCD               VIA     SINCE                 IMAGE",
                "control-plane-0  control-plane  PCR 4 9 11 12 13 15   yes (abc)             yes (initialized the cluster)  leader, healthy    init    2026-11-24T03:00:00Z  1.4.0",
                "control-plane-1  control-plane  PCR 4 9 11 12 13 15   yes (cde)             yes                            follower, healthy  join    2026-11-24T03:02:00Z  1.4.0",
                "worker-0         worker         PCR 4 9 11 12 13 15   yes (def)             yes                            -                  rejoin  2026-11-24T03:05:00Z  unknown",
                "Kubernetes: not installed"), summary.render());
    }

    @Test
    @DisplayName("says a node is no member when it reports another role than it was booted as")
    void wrongRole() {
        assertEquals("no (reported role control-plane)", Summary.Row.of("worker-0", NodeRole.WORKER, "PCR 15",
                status("role=control-plane disk=none kubernetes=x via=join since=2026-11-24T03:05:00Z"), EtcdMemberState.NONE).joined());
    }

    private static NodeStatusLine status(String fields) {
        return NodeStatusLine.parse("SEXTANT-STATUS bootstrapped " + fields).orElseThrow();
    }

    @Test
    @DisplayName("says 'Kubernetes: not installed' when the node reports no k3s, rather than failing or pretending")
    void notInstalled() {
        var status = Optional.of(status("role=control-plane disk=none kubernetes=not-installed via=init since=2026-11-24T03:00:00Z"));
        assertEquals("Kubernetes: not installed (the image has no k3s binary; 'sextant image build --k3s FILE' ships one)",
                Summary.kubernetes(status, kubeconfig, false));
    }

    @Test
    @DisplayName("names the kubeconfig when Kubernetes started, and says so when init returned none")
    void started() {
        var status = Optional.of(status("role=control-plane disk=none kubernetes=started via=init since=2026-11-24T03:00:00Z"));
        assertEquals("Kubernetes: started; kubeconfig: /m/kubeconfig", Summary.kubernetes(status, kubeconfig, true));
        assertEquals("Kubernetes: started, but init returned no kubeconfig", Summary.kubernetes(status, kubeconfig, false));
        assertEquals("Kubernetes: unknown", Summary.kubernetes(Optional.empty(), kubeconfig, false));
    }
}
