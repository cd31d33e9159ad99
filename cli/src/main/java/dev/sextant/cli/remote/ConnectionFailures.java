package dev.sextant.cli.remote;

import dev.sextant.cli.failure.GrpcStatusWords;
import dev.sextant.cli.failure.CliFailure;
import dev.sextant.cli.failure.Printable;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;

import javax.net.ssl.SSLException;
import java.net.ConnectException;
import java.net.UnknownHostException;
import java.time.Duration;

/**
 * A failed call to an endpoint in words: which address was tried, and whether nothing listened
 * there, the TLS handshake failed, it did not answer within the timeout, or it answered with an error.
 * (A node whose attestation was rejected is not a failure of the connection: callers print the
 * rejection first.)
 */
public final class ConnectionFailures {
    private ConnectionFailures() {}

    public static CliFailure describe(NodeEndpoint endpoint, StatusRuntimeException e, Duration timeout) {
        Status status = e.getStatus();
        if (status.getCode() == Status.Code.DEADLINE_EXCEEDED) {
            return new CliFailure("no answer from " + endpoint + " within " + seconds(timeout)
                    + ": is the node up and reachable? (wait longer with --timeout SECONDS)", e);
        }
        if (status.getCode() == Status.Code.UNAVAILABLE) {
            if (find(e, UnknownHostException.class) != null) {
                return new CliFailure("cannot resolve the host of " + endpoint + ": check --endpoint", e);
            }
            ConnectException refused = find(e, ConnectException.class);
            if (refused != null) {
                String reason = refused.getMessage() == null ? "" : refused.getMessage().toLowerCase();
                // NIO says "Connection refused"; Netty's native epoll transport, where it is on the class
                // path (the tests that run a join service beside the CLI), gives the errno: -111, ECONNREFUSED.
                boolean connectionRefused = reason.startsWith("connection refused") || reason.contains("error(-111)");
                return new CliFailure(connectionRefused
                        ? "nothing listens on " + endpoint + " (connection refused): start the node, or pass its gRPC port with --endpoint"
                        : "cannot connect to " + endpoint + " (" + reason.replaceFirst(":.*", "") + "): check the network and --endpoint", e);
            }
            SSLException tls = find(e, SSLException.class);
            if (tls != null) {
                return new CliFailure("the TLS handshake with " + endpoint + " failed ("
                        + Printable.of(String.valueOf(tls.getMessage()))
                        + "): is --endpoint a Sextant node's attested gRPC port?", e);
            }
        }
        return new CliFailure(endpoint + " " + GrpcStatusWords.describe(status), e);
    }

    private static String seconds(Duration timeout) {
        return timeout.toMillis() % 1000 == 0 ? timeout.toSeconds() + " s" : timeout.toMillis() + " ms";
    }

    private static <T extends Throwable> T find(Throwable e, Class<T> type) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (type.isInstance(t)) {
                return type.cast(t);
            }
        }
        return null;
    }
}
