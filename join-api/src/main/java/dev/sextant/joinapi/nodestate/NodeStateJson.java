package dev.sextant.joinapi.nodestate;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Optional;

/**
 * The JSON values of {@code nodes/<name>/attestation} and {@code revoked/<ak>} (docs/re-attestation.md).
 * Times are UTC instants as RFC 3339 text ({@code 2026-11-27T20:31:05.123Z}); what is unknown is
 * {@code null}. Reading is strict about the fields the contract names (a value that breaks them is a
 * broken store, named by its key, never quoted) and ignores fields a later writer adds.
 */
final class NodeStateJson {
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private NodeStateJson() {
    }

    static String attestation(NodeAttestation a) {
        ObjectNode node = JSON.createObjectNode();
        node.put("state", a.state().wire());
        node.put("lastSuccess", a.lastSuccess().map(Instant::toString).orElse(null));
        node.put("imageVersion", a.imageVersion().orElse(null));
        node.put("failure", a.failure().orElse(null));
        node.put("missed", a.missed());
        return node.toString();
    }

    static NodeAttestation attestation(String key, String value) {
        JsonNode node = parse(key, value);
        AttestationState state = AttestationState.fromWire(text(key, node, "state").orElse(""))
                .orElseThrow(() -> broken(key, "its state is none of attested, unreachable, revoked"));
        JsonNode missed = node.get("missed");
        if (missed == null || !missed.canConvertToInt() || !missed.isIntegralNumber() || missed.intValue() < 0) {
            throw broken(key, "its missed rounds are not a count");
        }
        return new NodeAttestation(state, instant(key, node, "lastSuccess"), text(key, node, "imageVersion"),
                text(key, node, "failure"), missed.intValue());
    }

    static String revocation(Revocation r) {
        ObjectNode node = JSON.createObjectNode();
        node.put("node", r.node());
        node.put("reason", r.reason());
        node.put("at", r.at().toString());
        node.put("by", r.by());
        return node.toString();
    }

    static Revocation revocation(String key, String value) {
        JsonNode node = parse(key, value);
        return new Revocation(
                text(key, node, "node").orElseThrow(() -> broken(key, "it names no node")),
                text(key, node, "reason").filter(r -> !r.isBlank()).orElseThrow(() -> broken(key, "it names no reason")),
                instant(key, node, "at").orElseThrow(() -> broken(key, "it has no time")),
                text(key, node, "by").orElseThrow(() -> broken(key, "it names no one who revoked")));
    }

    private static JsonNode parse(String key, String value) {
        try {
            JsonNode node = JSON.readTree(value);
            if (node == null || !node.isObject()) {
                throw broken(key, "it is not a JSON object");
            }
            return node;
        } catch (JsonProcessingException e) {
            throw broken(key, "it is not JSON");
        }
    }

    private static Optional<String> text(String key, JsonNode node, String field) {
        JsonNode value = node.get(field);
        if (value == null || value.isNull()) {
            return Optional.empty();
        }
        if (!value.isTextual()) {
            throw broken(key, "its " + field + " is not text");
        }
        return Optional.of(value.textValue());
    }

    private static Optional<Instant> instant(String key, JsonNode node, String field) {
        try {
            return text(key, node, field).map(Instant::parse);
        } catch (DateTimeParseException e) {
            throw broken(key, "its " + field + " is not an RFC 3339 UTC time");
        }
    }

    private static IllegalStateException broken(String key, String why) {
        return new IllegalStateException(key + " in etcd is not what re-attestation writes: " + why);
    }
}
