package dev.sextant.housekeeping.discovery;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.Base64;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Wire form of one owner's announcement: {@code {"v":VERSION,"r":[{"n":NAME,"a":ADDRESS,"p":PORT}],
 * "s":[{"n":NAME,"b":BASE64}]}}. The optional {@code "s"} holds named statements: bytes that travel
 * with a member's records but are no endpoint, like the cluster's signed revocation list under
 * {@code revocations.DOMAIN}; which names a member may publish is {@link RecordVerifier}'s to decide.
 * Without statements the encoding is what it was before they existed. Only key holders can send at
 * all (the transport is sealed), but a decoder still bounds sizes and accepts nothing outside the
 * cluster's discovery domain.
 */
final class RecordCodec {
    static final int MAX_BYTES = 64 * 1024;
    static final int MAX_RECORDS = 256;
    static final int MAX_STATEMENTS = 4;

    /** @param statements statement name to its bytes, sorted by name; empty when the announcement carries none */
    record Announcement(long version, Set<EndpointRecord> records, SortedMap<String, byte[]> statements) {
    }

    private final ObjectMapper json = new ObjectMapper();
    private final String domain;

    RecordCodec(String domain) {
        this.domain = domain;
    }

    byte[] encode(long version, Set<EndpointRecord> records) {
        return encode(version, records, Map.of());
    }

    byte[] encode(long version, Set<EndpointRecord> records, Map<String, byte[]> statements) {
        ObjectNode root = json.createObjectNode().put("v", version);
        ArrayNode list = root.putArray("r");
        new TreeSet<>(records).forEach(r -> list.addObject().put("n", r.name()).put("a", r.address()).put("p", r.port()));
        if (!statements.isEmpty()) {
            ArrayNode named = root.putArray("s");
            new TreeMap<>(statements).forEach((name, bytes) -> named.addObject().put("n", name)
                    .put("b", Base64.getEncoder().encodeToString(bytes)));
        }
        try {
            return json.writeValueAsBytes(root);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("encoding records", e);
        }
    }

    /** Throws IllegalArgumentException naming what is wrong. */
    Announcement decode(byte[] bytes) {
        if (bytes.length > MAX_BYTES) {
            throw new IllegalArgumentException("announcement of " + bytes.length + " bytes exceeds " + MAX_BYTES);
        }
        JsonNode root;
        try {
            root = json.readTree(bytes);
        } catch (java.io.IOException e) {
            throw new IllegalArgumentException("announcement is not JSON: " + e.getMessage());
        }
        if (root == null || !root.path("v").canConvertToLong() || root.path("v").asLong() < 1 || !root.path("r").isArray()) {
            throw new IllegalArgumentException("announcement needs a positive version 'v' and a record list 'r'");
        }
        if (root.get("r").size() > MAX_RECORDS) {
            throw new IllegalArgumentException("announcement holds more than " + MAX_RECORDS + " records");
        }
        Set<EndpointRecord> records = new TreeSet<>();
        for (JsonNode r : root.get("r")) {
            if (!r.path("n").isTextual() || !r.path("a").isTextual() || !r.path("p").isInt()) {
                throw new IllegalArgumentException("record needs text 'n', text 'a' and integer 'p': " + r);
            }
            EndpointRecord record = new EndpointRecord(r.get("n").asText(), r.get("a").asText(), r.get("p").asInt());
            if (!record.inDomain(domain)) {
                throw new IllegalArgumentException("record " + record.name() + " lies outside " + domain);
            }
            records.add(record);
        }
        return new Announcement(root.get("v").asLong(), records, statements(root.path("s")));
    }

    private SortedMap<String, byte[]> statements(JsonNode list) {
        SortedMap<String, byte[]> statements = new TreeMap<>();
        if (list.isMissingNode()) {
            return statements;
        }
        if (!list.isArray() || list.size() > MAX_STATEMENTS) {
            throw new IllegalArgumentException("announcement's statements 's' must be a list of at most " + MAX_STATEMENTS);
        }
        for (JsonNode s : list) {
            if (!s.path("n").isTextual() || !s.path("b").isTextual()) {
                throw new IllegalArgumentException("statement needs text 'n' and base64 text 'b'");
            }
            String name = s.get("n").asText();
            if (!EndpointRecord.isDnsName(name) || !name.endsWith("." + domain)) {
                throw new IllegalArgumentException("statement name lies outside " + domain);
            }
            byte[] bytes;
            try {
                bytes = Base64.getDecoder().decode(s.get("b").asText());
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("statement " + name + " is not base64");
            }
            if (statements.put(name, bytes) != null) {
                throw new IllegalArgumentException("announcement holds statement " + name + " twice");
            }
        }
        return statements;
    }
}
