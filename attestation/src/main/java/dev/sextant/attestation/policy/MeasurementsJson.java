package dev.sextant.attestation.policy;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sextant.attestation.Variant;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;

/** Strict reader and canonical writer of the measurements JSON: unknown fields and bad values are errors. */
final class MeasurementsJson {
    static final int MAX_BYTES = 64 * 1024;
    /** Configured once and never changed: ObjectMapper is thread-safe for reading and writing. */
    private static final ObjectMapper MAPPER = JsonMapper.builder()
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .enable(SerializationFeature.INDENT_OUTPUT)
            .build();

    private MeasurementsJson() {}

    static Measurements parse(byte[] json) throws MeasurementsException {
        if (json.length > MAX_BYTES) {
            throw new MeasurementsException("measurements file is " + json.length + " bytes, over the limit " + MAX_BYTES);
        }
        JsonNode root;
        try {
            root = MAPPER.readTree(json);
        } catch (IOException e) {
            throw new MeasurementsException("measurements file is not valid JSON: " + (e instanceof JsonProcessingException j ? j.getOriginalMessage() : e.getMessage()), e);
        }
        ObjectNode top = object(root, "the top level");
        onlyFields(top, "the top level", Set.of("variant", "measurements"));
        JsonNode variantNode = top.get("variant");
        if (variantNode == null || !variantNode.isTextual()) {
            throw new MeasurementsException("measurements file has no \"variant\" string");
        }
        Variant variant = Variant.byId(variantNode.asText()).orElseThrow(() ->
                new MeasurementsException("unknown variant \"" + variantNode.asText() + "\""));
        ObjectNode entries = object(top.get("measurements"), "\"measurements\"");
        SortedMap<Integer, ExpectedValue> values = new TreeMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = entries.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            values.put(pcrIndex(e.getKey()), expected(e.getKey(), e.getValue()));
        }
        return new Measurements(variant, values);
    }

    private static int pcrIndex(String key) throws MeasurementsException {
        if (!key.matches("0|[1-9][0-9]?")) {
            throw new MeasurementsException("\"" + key + "\" is not a PCR index in 0.." + Measurements.MAX_PCR);
        }
        int pcr = Integer.parseInt(key);
        if (pcr > Measurements.MAX_PCR) {
            throw new MeasurementsException("PCR " + pcr + " is outside 0.." + Measurements.MAX_PCR);
        }
        return pcr;
    }

    private static ExpectedValue expected(String pcr, JsonNode node) throws MeasurementsException {
        String where = "PCR " + pcr;
        ObjectNode entry = object(node, where);
        onlyFields(entry, where, Set.of("expected", "warnOnly"));
        JsonNode hex = entry.get("expected");
        JsonNode warn = entry.get("warnOnly");
        if (hex == null || !hex.isTextual() || !hex.asText().matches("[0-9a-fA-F]{64}")) {
            throw new MeasurementsException(where + ": \"expected\" must be 64 hex digits (a SHA-256 value)");
        }
        if (warn != null && !warn.isBoolean()) {
            throw new MeasurementsException(where + ": \"warnOnly\" must be true or false");
        }
        return new ExpectedValue(HexFormat.of().parseHex(hex.asText()), warn != null && warn.booleanValue());
    }

    private static ObjectNode object(JsonNode node, String where) throws MeasurementsException {
        if (!(node instanceof ObjectNode o)) {
            throw new MeasurementsException(where + " must be a JSON object");
        }
        return o;
    }

    private static void onlyFields(ObjectNode node, String where, Set<String> allowed) throws MeasurementsException {
        for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
            String name = it.next();
            if (!allowed.contains(name)) {
                throw new MeasurementsException(where + " has unknown field \"" + name + "\"");
            }
        }
    }

    static byte[] write(Measurements m) {
        ObjectNode root = MAPPER.createObjectNode();
        root.put("variant", m.variant().id());
        ObjectNode entries = root.putObject("measurements");
        m.measurements().forEach((pcr, v) -> entries.putObject(Integer.toString(pcr))
                .put("expected", HexFormat.of().formatHex(v.expected()))
                .put("warnOnly", v.warnOnly()));
        try {
            return (MAPPER.writeValueAsString(root) + "\n").getBytes(StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException("a tree of strings and booleans always serialises", e);
        }
    }
}
