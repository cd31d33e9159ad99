package dev.sextant.cli.init;

import dev.sextant.localcluster.init.InitFailed;
import dev.sextant.localcluster.init.InitResult;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * What {@code sextant init} prints and writes once the node answered: the cluster ID and the
 * kubeconfig, or the node's failure with its journal, printed and saved.
 */
final class InitReport {
    private final PrintWriter out;

    InitReport(PrintWriter out) {
        this.out = out;
    }

    /** Exit 0. {@code nodeHost}: the node's address as the operator reaches it. */
    int initialized(InitResult result, String nodeHost, Path kubeconfigOut) throws IOException {
        out.println("cluster ID: " + result.clusterIdHex());
        if (result.kubeconfig().isEmpty()) {
            out.println("Kubernetes: not installed on the node; no kubeconfig written");
            return 0;
        }
        // k3s names its API server 127.0.0.1 from the node's view; the operator reaches it at the node's address.
        String kubeconfig = result.kubeconfig().get().replace("https://127.0.0.1:", "https://" + nodeHost + ":");
        Files.deleteIfExists(kubeconfigOut);
        Files.createFile(kubeconfigOut, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        Files.writeString(kubeconfigOut, kubeconfig, StandardOpenOption.TRUNCATE_EXISTING);
        out.println("kubeconfig written to " + kubeconfigOut);
        return 0;
    }

    /** Exit 1. */
    int failed(InitFailed failure, Path journalOut) throws IOException {
        byte[] journal = failure.journal();
        out.println("init failed: " + failure.getMessage());
        out.println("---- node journal ----");
        out.print(new String(journal, StandardCharsets.UTF_8));
        out.println("---- end of node journal (saved to " + journalOut + ") ----");
        Files.write(journalOut, journal);
        return 1;
    }
}
