package dev.sextant.kms;

import java.util.Locale;

/** Why a key request is refused, with a message for the caller that says what is wrong. */
public record Refusal(Reason reason, String message) {

    /** Refusal reasons; their lower-case names tag the refusal metric. */
    public enum Reason {
        EMPTY_ID,
        ID_TOO_LONG,
        ID_BAD_CHARACTER,
        BAD_LENGTH;

        String tag() {
            return name().toLowerCase(Locale.ROOT);
        }
    }
}
