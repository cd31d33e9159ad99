package dev.sextant.joinapi;

import io.grpc.Status;

/**
 * Why a ticket was not issued: the gRPC status the caller gets, a metrics reason and a message that
 * is safe to send back (it never contains key material). Checked, so every step that can refuse
 * says so in its signature.
 */
public final class Refusal extends Exception {

    /** Metric tag values; registered up front so dashboards see explicit zeros. */
    public enum Reason {
        INVALID_INPUT(Status.Code.INVALID_ARGUMENT),
        UNATTESTED(Status.Code.UNAUTHENTICATED),
        DISK_BOUND_ELSEWHERE(Status.Code.PERMISSION_DENIED),
        DISK_NOT_BOUND(Status.Code.PERMISSION_DENIED),
        NODE_NAME_TAKEN(Status.Code.ALREADY_EXISTS),
        KMS_UNAVAILABLE(Status.Code.UNAVAILABLE),
        KUBERNETES_UNAVAILABLE(Status.Code.UNAVAILABLE),
        INTERNAL(Status.Code.INTERNAL);

        private final Status.Code code;

        Reason(Status.Code code) {
            this.code = code;
        }

        public Status.Code code() {
            return code;
        }

        public String tag() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    private final Reason reason;

    public Refusal(Reason reason, String message) {
        super(message);
        this.reason = reason;
    }

    public Refusal(Reason reason, String message, Throwable cause) {
        super(message, cause);
        this.reason = reason;
    }

    public Reason reason() {
        return reason;
    }

    public static Refusal invalid(String message) {
        return new Refusal(Reason.INVALID_INPUT, message);
    }

    public io.grpc.StatusRuntimeException toStatus() {
        return Status.fromCode(reason.code()).withDescription(getMessage()).asRuntimeException();
    }
}
