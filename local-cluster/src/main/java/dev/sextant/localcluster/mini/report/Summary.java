package dev.sextant.localcluster.mini.report;

import dev.sextant.localcluster.mini.node.NodeRole;
import dev.sextant.localcluster.mini.node.NodeStatusLine;
import dev.sextant.localcluster.mini.node.EtcdMemberState;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The table {@code mini up} and {@code mini start} end with: per node its role, the PCRs verified
 * over attested TLS (by mini itself, against the image's measurements and this cluster's PCR 15),
 * whether its state disk is encrypted, whether it is a member, a control plane's etcd member (leader,
 * follower or learner, and its health), how it became a member this boot, since when its disk
 * holds the cluster and the image version it reports; then what became of Kubernetes.
 */
public record Summary(List<Row> rows, String kubernetes) {
    public Summary {
        rows = List.copyOf(rows);
    }

    /** One node. {@code verified}: the PCR indices checked, or why verification failed. */
    public record Row(String node, String role, String verified, String stateDisk, String joined, String etcd,
                      String via, String since, String image) {
        /** The row of a node that reported {@code status}, verified as {@code verified} says and whose member is {@code etcd}. */
        public static Row of(String node, NodeRole role, String verified, NodeStatusLine status, EtcdMemberState etcd) {
            String joined = !status.role().equals(role.label()) ? "no (reported role " + status.role() + ")"
                    : status.via().equals("init") ? "yes (initialized the cluster)" : "yes";
            return new Row(node, role.label(), verified, status.diskSummary(), joined, etcd.describe(), status.via(),
                    status.since(), status.image());
        }
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
        cells.add(new String[] {"NODE", "ROLE", "VERIFIED PCRS (aTLS)", "STATE DISK ENCRYPTED", "JOINED", "ETCD", "VIA",
                "SINCE", "IMAGE"});
        rows.forEach(r -> cells.add(new String[] {r.node(), r.role(), r.verified(), r.stateDisk(), r.joined(), r.etcd(),
                r.via(), r.since(), r.image()}));
        int[] widths = new int[cells.get(0).length];
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
