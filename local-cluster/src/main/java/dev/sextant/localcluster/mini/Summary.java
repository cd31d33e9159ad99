package dev.sextant.localcluster.mini;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The table {@code mini up} ends with: per node its role, the PCRs verified over attested TLS
 * (by {@code mini up} itself, against the image's measurements and this cluster's PCR 15), whether
 * its state disk is encrypted and whether it is a member; then what became of Kubernetes.
 */
public record Summary(List<Row> rows, String kubernetes) {
    public Summary {
        rows = List.copyOf(rows);
    }

    /** One node. {@code verified}: the PCR indices checked, or why verification failed. */
    public record Row(String node, String role, String verified, String stateDisk, String joined) {
    }

    /**
     * What the nodes say about Kubernetes, from the control plane's status line: "not installed"
     * when the image has no k3s (a fact, not a failure), the kubeconfig when it started.
     */
    public static String kubernetes(Optional<NodeStatusLine> controlPlane, Path kubeconfig, boolean kubeconfigWritten) {
        String state = controlPlane.map(NodeStatusLine::kubernetes).orElse("unknown");
        return switch (state) {
            case "not-installed" -> "Kubernetes: not installed (the image has no k3s binary; "
                    + "'sextant image build --k3s FILE' ships one)";
            case "started" -> kubeconfigWritten ? "Kubernetes: started; kubeconfig: " + kubeconfig
                    : "Kubernetes: started, but init returned no kubeconfig";
            default -> "Kubernetes: " + state;
        };
    }

    public List<String> render() {
        List<String[]> cells = new ArrayList<>();
        cells.add(new String[] {"NODE", "ROLE", "VERIFIED PCRS (aTLS)", "STATE DISK ENCRYPTED", "JOINED"});
        rows.forEach(r -> cells.add(new String[] {r.node(), r.role(), r.verified(), r.stateDisk(), r.joined()}));
        int[] widths = new int[5];
        for (String[] row : cells) {
            for (int i = 0; i < row.length; i++) {
                widths[i] = Math.max(widths[i], row[i].length());
            }
        }
        List<String> lines = new ArrayList<>();
        for (String[] row : cells) {
            StringBuilder line = new StringBuilder();
            for (int i = 0; i < row.length; i++) {
                line.append(i == row.length - 1 ? row[i] : String.format("%-" + widths[i] + "s  ", row[i]));
            }
            lines.add(line.toString().stripTrailing());
        }
        lines.add(kubernetes);
        return lines;
    }
}
