package dev.sextant.cli.operator;

import com.google.protobuf.ByteString;
import com.google.protobuf.MessageLite;
import dev.sextant.cli.failure.CliFailure;
import dev.sextant.cli.failure.Rejections;
import dev.sextant.cli.remote.ConnectionFailures;
import dev.sextant.cli.remote.NodeEndpoint;
import io.grpc.CallOptions;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;

/**
 * What every operator command does on its connection to a join service: make the handshake (verifying
 * the service, and printing the rejection when it is not), then send a request proven on that connection
 * and take the answer within the timeout. The connection stays the caller's to close.
 */
public final class OperatorCall {
    private final OperatorConnection connection;
    private final NodeEndpoint endpoint;
    private final Duration timeout;

    public OperatorCall(OperatorConnection connection, NodeEndpoint endpoint, Duration timeout) {
        this.connection = connection;
        this.endpoint = endpoint;
        this.timeout = timeout;
    }

    /**
     * Makes the handshake; false, with the rejection's line printed on {@code out}, when the join service
     * was rejected. Any other failure to connect is a {@link CliFailure}.
     */
    public boolean connect(PrintWriter out) throws InterruptedException {
        if (connection.connect(timeout)) {
            return true;
        }
        out.println(Rejections.line(connection.rejection().orElseThrow()));
        return false;
    }

    /**
     * Calls {@code method} with {@code unsigned} carrying the operator's proof of it ({@code withProof} sets
     * the request's proof field: the proof covers the request without it). A failed call is a
     * {@link CliFailure} in words ({@link ConnectionFailures}); for the codes in {@code answers} the
     * service's description is the operator's answer (an unknown node, say) and is told as it is.
     */
    public <Q extends MessageLite, R> R call(MethodDescriptor<Q, R> method, Q unsigned,
                                             BiFunction<Q, ByteString, Q> withProof, Set<Status.Code> answers) {
        Q request = withProof.apply(unsigned, ByteString.copyFrom(
                connection.prove(method.getFullMethodName(), unsigned.toByteArray())));
        try {
            return ClientCalls.blockingUnaryCall(connection.channel(), method,
                    CallOptions.DEFAULT.withDeadlineAfter(timeout.toMillis(), TimeUnit.MILLISECONDS), request);
        } catch (StatusRuntimeException e) {
            if (answers.contains(e.getStatus().getCode())) {
                throw new CliFailure(String.valueOf(e.getStatus().getDescription()), e);
            }
            throw ConnectionFailures.describe(endpoint, e, timeout);
        }
    }
}
