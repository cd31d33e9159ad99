package dev.sextant.serviceconfig;

/** A setting is missing or malformed; the message names the property and what it expects. */
public final class ConfigException extends IllegalArgumentException {
    public ConfigException(String message) {
        super(message);
    }
}
