package dev.sextant.grpcsupport;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.util.Locale;

/**
 * Why a service did not answer: a reason (which fixes the gRPC status code and the metric tag) and a
 * message written for the caller. The message is the only text that leaves the service; a cause is
 * kept for the service's own log and is never sent, so no exception text (paths, API server
 * answers, key material in a toString) reaches a possibly hostile caller. Checked, so every step
 * that can refuse says so in its signature. Every Sextant gRPC service refuses through this type.
 */
public final class Refusal extends Exception {
    private static final long serialVersionUID = 1L;

    /** One service's refusal reasons, usually an enum: its code and its metric tag. */
    public interface Reason {
        Status.Code code();

        /** Enum constants implement this by their name. */
        String name();

        default String tag() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    private final transient Reason reason;

    /** @param message for the caller: says what is wrong; must not contain a secret or an exception's text */
    public Refusal(Reason reason, String message) {
        super(message);
        this.reason = reason;
    }

    /** @param cause logged by the service, never sent to the caller */
    public Refusal(Reason reason, String message, Throwable cause) {
        super(message, cause);
        this.reason = reason;
    }

    public Reason reason() {
        return reason;
    }

    /** The status the caller sees: the reason's code and the message, without the cause. */
    public StatusRuntimeException toStatus() {
        return Status.fromCode(reason.code()).withDescription(getMessage()).asRuntimeException();
    }

    /** True when the service itself or one of its dependencies failed (worth a WARN, not an INFO). */
    public boolean isServerSide() {
        Status.Code code = reason.code();
        return code == Status.Code.INTERNAL || code == Status.Code.UNAVAILABLE;
    }
}
