package dev.sextant.joinapi.operator;

import dev.sextant.grpcsupport.Refusal;
import io.grpc.Status;

/** Why the join service refuses the operator's call; the lower-case names tag the log. */
public enum OperatorRefusal implements Refusal.Reason {
    /** No proof, a malformed one, or one that is not the operator credential's for this call on this connection. */
    UNAUTHENTICATED(Status.Code.UNAUTHENTICATED),
    INVALID_INPUT(Status.Code.INVALID_ARGUMENT),
    /** Revoke of a name no machine is bound to. */
    NO_SUCH_NODE(Status.Code.NOT_FOUND);

    private final Status.Code code;

    OperatorRefusal(Status.Code code) {
        this.code = code;
    }

    @Override
    public Status.Code code() {
        return code;
    }
}
