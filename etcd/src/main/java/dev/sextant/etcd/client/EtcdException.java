package dev.sextant.etcd.client;

import io.grpc.Status;
import java.util.List;
import java.util.stream.Collectors;

/**
 * An etcd call that failed at every endpoint it tried, or that etcd refused. The message names the
 * operation and, per endpoint, the gRPC status and what it means; never a key's value (and no key: the
 * operation name says which call it was).
 */
public final class EtcdException extends RuntimeException {
    /** One endpoint's answer to one attempt. */
    public record Failure(String endpoint, Status.Code code, String reason) {
        @Override
        public String toString() {
            return endpoint + ": " + code + ", " + reason;
        }
    }

    private final transient List<Failure> failures;

    EtcdException(String operation, List<Failure> failures, Throwable cause) {
        super(message(operation, failures), cause);
        this.failures = List.copyOf(failures);
    }

    private static String message(String operation, List<Failure> failures) {
        String where = failures.size() == 1 ? "at " : "at every endpoint: ";
        return "etcd " + operation + " failed " + where
                + failures.stream().map(Failure::toString).collect(Collectors.joining("; "));
    }

    /** Every attempt, in the order made. */
    public List<Failure> failures() {
        return failures;
    }

    /** The status of the last attempt: what etcd (or the connection) said in the end. */
    public Status.Code code() {
        return failures.get(failures.size() - 1).code();
    }
}
