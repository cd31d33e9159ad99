package dev.sextant.diskcrypt;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.Iterator;
import java.util.Set;

/** Small exact-match checks on untrusted JSON; each failure names the path and what was expected. */
final class Strict {
    private Strict() {}

    /** {@code allowed == null} means any key (maps keyed by slot number). */
    static JsonNode object(JsonNode node, String where, Set<String> allowed) throws DiskCryptException {
        if (node == null || !node.isObject()) {
            throw new DiskCryptException("LUKS2 header: " + where + " must be an object");
        }
        if (allowed != null) {
            for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
                String name = it.next();
                if (!allowed.contains(name)) {
                    throw new DiskCryptException("LUKS2 header: " + where + " has unknown field '" + name + "'");
                }
            }
        }
        return node;
    }

    static void text(JsonNode node, String field, String expected, String where) throws DiskCryptException {
        JsonNode value = node.get(field);
        if (value == null || !value.isTextual() || !value.asText().equals(expected)) {
            throw new DiskCryptException("LUKS2 header: " + where + "." + field + " must be '" + expected
                    + "', found " + value);
        }
    }

    static void nonEmptyText(JsonNode node, String field, String where) throws DiskCryptException {
        JsonNode value = node.get(field);
        if (value == null || !value.isTextual() || value.asText().isEmpty()) {
            throw new DiskCryptException("LUKS2 header: " + where + "." + field + " must be a non-empty string");
        }
    }

    static void number(JsonNode node, String field, long expected, String where) throws DiskCryptException {
        JsonNode value = node.get(field);
        if (value == null || !value.isIntegralNumber() || value.asLong() != expected) {
            throw new DiskCryptException("LUKS2 header: " + where + "." + field + " must be " + expected
                    + ", found " + value);
        }
    }

    static void positive(JsonNode node, String field, String where) throws DiskCryptException {
        JsonNode value = node.get(field);
        if (value == null || !value.isIntegralNumber() || value.asLong() <= 0) {
            throw new DiskCryptException("LUKS2 header: " + where + "." + field + " must be a positive integer");
        }
    }
}
