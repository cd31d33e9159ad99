package dev.sextant.cli.failure;

import io.grpc.Status;

/** gRPC status codes in words, the one place they are worded; the subject is the remote end. */
public final class GrpcStatusWords {
    private GrpcStatusWords() {}

    /** "refused the request as invalid: <the server's description>", the description made printable. */
    public static String describe(Status status) {
        String description = status.getDescription();
        return words(status.getCode())
                + (description == null || description.isBlank() ? "" : ": " + Printable.of(description));
    }

    static String words(Status.Code code) {
        return switch (code) {
            case OK -> "answered";
            case CANCELLED -> "cancelled the call";
            case UNKNOWN -> "failed with an error it did not name";
            case INVALID_ARGUMENT -> "refused the request as invalid";
            case DEADLINE_EXCEEDED -> "did not answer in time";
            case NOT_FOUND -> "does not know what was asked for";
            case ALREADY_EXISTS -> "already has what was to be created";
            case PERMISSION_DENIED -> "refused the request (permission denied)";
            case RESOURCE_EXHAUSTED -> "is out of resources or limiting requests; try again later";
            case FAILED_PRECONDITION -> "is not in a state to do this";
            case ABORTED -> "aborted the request; try again";
            case OUT_OF_RANGE -> "got a value out of range";
            case UNIMPLEMENTED -> "does not offer this call (not a Sextant endpoint, or another version)";
            case INTERNAL -> "failed internally";
            case UNAVAILABLE -> "is unavailable";
            case DATA_LOSS -> "reported data loss";
            case UNAUTHENTICATED -> "did not accept this client's credentials";
        };
    }
}
