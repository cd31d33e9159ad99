package dev.sextant.cli.mini;

import dev.sextant.localcluster.mini.MiniCluster;
import dev.sextant.localcluster.mini.files.MiniState;
import dev.sextant.localcluster.mini.node.NodeRole;
import dev.sextant.localcluster.mini.report.NodeReport;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;

@Command(name = "status", footer = "  sextant mini status",
        exitCodeList = {" 0:every node runs and verifies", " 1:a node does not run or does not verify",
                " 2:usage error, or a file that cannot be read", " 3:no mini cluster in --dir"},
        description = "Per node of the mini cluster: whether QEMU and swtpm run, the forwarded ports, the last status "
                + "line of its console, a fresh attested-TLS verification and, on a control plane, its etcd member "
                + "(leader, follower or learner) and its health as the member answers, and its etcd data volume (the disk "
                + "file and whether this boot mounted it); then each node's re-attestation "
                + "state (attested, unreachable or revoked) as a control plane's join service reports it.")
public final class StatusCommand implements Callable<Integer> {
    static final int NO_CLUSTER = 3;

    @Spec
    CommandSpec spec;

    @Mixin
    MiniDirOption dir;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        MiniCluster cluster = new MiniCluster(dir.layout(), out::println);
        Optional<MiniState> state = cluster.state();
        if (state.isEmpty()) {
            out.println("no mini cluster in " + dir.layout().dir() + "; start one with 'sextant mini up'");
            return NO_CLUSTER;
        }
        out.println("mini cluster in " + dir.layout().dir() + ": " + state.get().phase() + " (started "
                + state.get().startedAt() + ")" + state.get().clusterIdIfKnown().map(id -> ", cluster ID " + id).orElse(""));
        List<NodeReport> reports = cluster.status().orElseThrow();
        boolean healthy = !reports.isEmpty();
        for (NodeReport r : reports) {
            out.printf("%s (%s)%n", r.name(), r.role());
            out.printf("  processes: QEMU %s, swtpm %s%n", r.qemuAlive() ? "running" : "not running",
                    r.swtpmAlive() ? "running" : "not running");
            out.printf("  ports:     %s%n", r.ports());
            out.printf("  console:   %s%n", r.lastStatus());
            out.printf("  verify:    %s%n", r.verify());
            if (r.role().equals(NodeRole.CONTROL_PLANE.label())) {
                out.printf("  etcd:      %s%n", r.etcd());
                out.printf("  volume:    %s%n", r.volume());
                healthy &= r.etcd().endsWith(", healthy");
            }
            healthy &= r.qemuAlive() && r.swtpmAlive() && r.verify().startsWith("PCR ");
        }
        out.println("re-attestation, as the join service sees it (sextant cluster status):");
        StringBuilder whyNot = new StringBuilder();
        Optional<List<String>> operator = MiniOperator.args(dir.layout(), state.get(), whyNot);
        if (operator.isPresent()) {
            // Its own exit code does not decide this one: the nodes' health above does.
            InProcessCommand.CLUSTER_STATUS.run(operator.get(), line -> out.println("  " + line));
        } else {
            out.println("  not asked: " + whyNot);
        }
        out.println("checked at " + Instant.now());
        return healthy ? 0 : 1;
    }
}
