package dev.sextant.localcluster.mini;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("The summary mini up prints")
class SummaryTest {
    private final Path kubeconfig = Path.of("/m/kubeconfig");

    @Test
    @DisplayName("is an aligned table of node, role, verified PCRs, state disk and membership, then Kubernetes")
    void table() {
        Summary summary = new Summary(List.of(
                new Summary.Row("control-plane-0", "control-plane", "PCR 4 9 11 12 13 15", "yes (abc)", "yes (initialized the cluster)"),
                new Summary.Row("worker-0", "worker", "PCR 4 9 11 12 13 15", "yes (def)", "yes")),
                "Kubernetes: not installed");
        assertEquals(List.of(
                "NODE             ROLE           VERIFIED PCRS (aTLS)  STATE DISK ENCRYPTED  JOINED",
                "control-plane-0  control-plane  PCR 4 9 11 12 13 15   yes (abc)             yes (initialized the cluster)",
                "worker-0         worker         PCR 4 9 11 12 13 15   yes (def)             yes",
                "Kubernetes: not installed"), summary.render());
    }

    @Test
    @DisplayName("says 'Kubernetes: not installed' when the node reports no k3s, rather than failing or pretending")
    void notInstalled() {
        var status = NodeStatusLine.parse("SEXTANT-STATUS bootstrapped role=control-plane disk=none kubernetes=not-installed");
        assertEquals("Kubernetes: not installed (the image has no k3s binary; 'sextant image build --k3s FILE' ships one)",
                Summary.kubernetes(status, kubeconfig, false));
    }

    @Test
    @DisplayName("names the kubeconfig when Kubernetes started, and says so when init returned none")
    void started() {
        var status = NodeStatusLine.parse("SEXTANT-STATUS bootstrapped role=control-plane disk=none kubernetes=started");
        assertEquals("Kubernetes: started; kubeconfig: /m/kubeconfig", Summary.kubernetes(status, kubeconfig, true));
        assertEquals("Kubernetes: started, but init returned no kubeconfig", Summary.kubernetes(status, kubeconfig, false));
        assertEquals("Kubernetes: unknown", Summary.kubernetes(Optional.empty(), kubeconfig, false));
    }
}
