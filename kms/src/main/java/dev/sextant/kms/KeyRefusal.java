package dev.sextant.kms;

import dev.sextant.grpcsupport.Refusal;
import io.grpc.Status;

/** Why the KMS refuses a call; the lower-case names tag the refusal metric. */
public enum KeyRefusal implements Refusal.Reason {
    EMPTY_ID(Status.Code.INVALID_ARGUMENT),
    ID_TOO_LONG(Status.Code.INVALID_ARGUMENT),
    ID_BAD_CHARACTER(Status.Code.INVALID_ARGUMENT),
    BAD_LENGTH(Status.Code.INVALID_ARGUMENT),
    NO_IDS(Status.Code.INVALID_ARGUMENT),
    TOO_MANY_IDS(Status.Code.INVALID_ARGUMENT);

    private final Status.Code code;

    KeyRefusal(Status.Code code) {
        this.code = code;
    }

    @Override
    public Status.Code code() {
        return code;
    }
}
