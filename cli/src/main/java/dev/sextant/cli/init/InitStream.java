package dev.sextant.cli.init;

import dev.sextant.proto.v1.InitResponse;
import dev.sextant.proto.v1.InitSuccess;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HexFormat;

/**
 * Follows the node's init stream: progress as it comes, then exactly one success, or one failure
 * followed by journal chunks. A second outcome is a protocol error, not silently taken.
 */
final class InitStream {
    private final PrintWriter out;
    private final PrintWriter err;
    private final String nodeHost;
    private final ByteArrayOutputStream journal = new ByteArrayOutputStream();
    private InitSuccess success;
    private String failure;

    InitStream(PrintWriter out, PrintWriter err, String nodeHost) {
        this.out = out;
        this.err = err;
        this.nodeHost = nodeHost;
    }

    void accept(InitResponse response) {
        if ((response.hasSuccess() || response.hasFailure()) && (success != null || failure != null)) {
            throw new IllegalStateException("the node sent a second outcome; stream is broken");
        }
        switch (response.getKindCase()) {
            case PROGRESS -> out.printf("[%s] %s%n", response.getProgress().getStep(), response.getProgress().getDetail());
            case SUCCESS -> success = response.getSuccess();
            case FAILURE -> failure = response.getFailure().getError();
            case JOURNAL_CHUNK -> journal.writeBytes(response.getJournalChunk().toByteArray());
            default -> err.println("warning: ignoring an init message of an unknown kind");
        }
        out.flush();
    }

    int finish(Path kubeconfigOut, Path journalOut) throws IOException {
        if (failure != null) {
            out.println("init failed: " + failure);
            out.println("---- node journal ----");
            out.print(journal.toString(StandardCharsets.UTF_8));
            out.println("---- end of node journal (saved to " + journalOut + ") ----");
            Files.write(journalOut, journal.toByteArray());
            return 1;
        }
        if (success == null) {
            throw new IllegalStateException("the node closed the stream without a result");
        }
        out.println("cluster ID: " + HexFormat.of().formatHex(success.getClusterId().toByteArray()));
        if (success.getKubeconfig().isEmpty()) {
            out.println("Kubernetes: not installed on the node; no kubeconfig written");
            return 0;
        }
        // k3s names its API server 127.0.0.1 from the node's view; the operator reaches it at the node's address.
        String kubeconfig = success.getKubeconfig().toStringUtf8().replace("https://127.0.0.1:", "https://" + nodeHost + ":");
        Files.deleteIfExists(kubeconfigOut);
        Files.createFile(kubeconfigOut, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        Files.writeString(kubeconfigOut, kubeconfig, StandardOpenOption.TRUNCATE_EXISTING);
        out.println("kubeconfig written to " + kubeconfigOut);
        return 0;
    }
}
