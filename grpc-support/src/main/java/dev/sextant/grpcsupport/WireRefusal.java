package dev.sextant.grpcsupport;

import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.util.Optional;

/**
 * A {@link Refusal} as its caller reads it off the wire: the status code, the reason's name and what it
 * names, from the trailers. Only codes are taken (upper-case letters, digits, underscores): a trailer
 * holding anything else counts as absent, so a caller never prints or acts on free text a service put
 * there. Who sent it is the caller's question: these trailers are worth what the channel's check of the
 * service is worth.
 */
public record WireRefusal(Status.Code code, String reason, Optional<String> detail) {

    /** The refusal {@code e} carries, if it carries a reason; empty for a status without one (a transport failure, another service). */
    public static Optional<WireRefusal> of(StatusRuntimeException e) {
        Metadata trailers = e.getTrailers();
        if (trailers == null) {
            return Optional.empty();
        }
        Optional<String> reason = code(trailers, Refusal.REASON_KEY);
        return reason.map(r -> new WireRefusal(e.getStatus().getCode(), r, code(trailers, Refusal.DETAIL_KEY)));
    }

    private static Optional<String> code(Metadata trailers, Metadata.Key<String> key) {
        String value = trailers.get(key);
        return value != null && Refusal.CODE.matcher(value).matches() ? Optional.of(value) : Optional.empty();
    }
}
