package dev.sextant.grpcsupport;

import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Why a service did not answer: a reason (which fixes the gRPC status code and the metric tag) and a
 * message written for the caller. The message is the only text that leaves the service; a cause is
 * kept for the service's own log and is never sent, so no exception text (paths, API server
 * answers, key material in a toString) reaches a possibly hostile caller. Checked, so every step
 * that can refuse says so in its signature. Every Sextant gRPC service refuses through this type.
 *
 * <p>The message is for people; a caller that must act on a refusal reads its code instead: every
 * refusal carries its reason's name in the trailer {@link #REASON_KEY} ({@code sextant-refusal}), and a
 * refusal made with {@link #detailed} also a short code saying what it names in {@link #DETAIL_KEY}
 * ({@code sextant-refusal-detail}), read back with {@link WireRefusal#of}.
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

    /** Trailer naming the refusal's reason ({@link Reason#name()}), e.g. {@code REVOKED}. */
    public static final Metadata.Key<String> REASON_KEY = Metadata.Key.of("sextant-refusal", Metadata.ASCII_STRING_MARSHALLER);
    /** Trailer with what the refusal names, a code of its own (e.g. the revocation's {@code OPERATOR}). */
    public static final Metadata.Key<String> DETAIL_KEY =
            Metadata.Key.of("sextant-refusal-detail", Metadata.ASCII_STRING_MARSHALLER);
    /** A code: upper-case letters, digits and underscores, starting with a letter; what both trailers may hold. */
    static final Pattern CODE = Pattern.compile("[A-Z][A-Z0-9_]{0,63}");

    private final transient Reason reason;
    private final String detail;

    /** @param message for the caller: says what is wrong; must not contain a secret or an exception's text */
    public Refusal(Reason reason, String message) {
        this(reason, message, (String) null);
    }

    private Refusal(Reason reason, String message, String detail) {
        super(message);
        this.reason = reason;
        this.detail = detail;
    }

    /**
     * A refusal whose caller acts on what it names, beside the reason: {@code detail} is sent as a code in
     * {@link #DETAIL_KEY}.
     *
     * @param detail a code ({@code [A-Z][A-Z0-9_]*}, at most 64 characters), never a secret
     */
    public static Refusal detailed(Reason reason, String message, String detail) {
        if (!CODE.matcher(detail).matches()) {
            throw new IllegalArgumentException("a refusal's detail is a code of upper-case letters, digits and underscores");
        }
        return new Refusal(reason, message, detail);
    }

    /** @param cause logged by the service, never sent to the caller */
    public Refusal(Reason reason, String message, Throwable cause) {
        super(message, cause);
        this.reason = reason;
        this.detail = null;
    }

    public Reason reason() {
        return reason;
    }

    /** What the refusal names, as the code sent in {@link #DETAIL_KEY}; empty when it names nothing a caller acts on. */
    public Optional<String> detail() {
        return Optional.ofNullable(detail);
    }

    /**
     * The status the caller sees: the reason's code and the message, without the cause; the reason's
     * name and the detail in the trailers.
     */
    public StatusRuntimeException toStatus() {
        Metadata trailers = new Metadata();
        trailers.put(REASON_KEY, reason.name());
        if (detail != null) {
            trailers.put(DETAIL_KEY, detail);
        }
        return Status.fromCode(reason.code()).withDescription(getMessage()).asRuntimeException(trailers);
    }

    /** True when the service itself or one of its dependencies failed (worth a WARN, not an INFO). */
    public boolean isServerSide() {
        Status.Code code = reason.code();
        return code == Status.Code.INTERNAL || code == Status.Code.UNAVAILABLE;
    }
}
