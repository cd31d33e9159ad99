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

/**
 * Strict reader and canonical writer of the measurements JSON: unknown fields and bad values are
 * errors. A set read from JSON is operator input and must cover every PCR the boot chain and the
 * node lock measure ({@link #REQUIRED_PCRS}): a file that leaves one out would silently accept any
 * value there (a changed kernel command line in 12, an unlocked or foreign node in 15). Sets built
 * in code are not held to this (the node builds partial sets), only what is parsed. For the same reason a
 * required PCR may not be {@code warnOnly}: a mismatch there would pass with a warning.
 */
final class MeasurementsJson {
    static final int MAX_BYTES = 64 * 1024;
    /** UKI and its sections (4, 11), the boot loader's view of the ESP (9), command line and credentials (12), sysexts (13), node lock (15). */
    static final java.util.List<Integer> REQUIRED_PCRS = java.util.List.of(4, 9, 11, 12, 13, 15);
    private static final String REQUIRED_LIST = REQUIRED_PCRS.stream().map(String::valueOf)
            .collect(java.util.stream.Collectors.joining(", "));
    /** Configured once and never changed: ObjectMapper is thread-safe for reading and writing. */
    private static final ObjectMapper MAPPER = JsonMapper.builder()
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .enable(SerializationFeature.INDENT_OUTPUT)
            .build();

    private MeasurementsJson() {}

    static Measurements parse(byte[] json) throws MeasurementsException {
        return parseFormatOne(json).images().get(0).measurements();
    }

    /**
     * A format-1 file ({@code {"version", "variant", "measurements", "nextKey"}}, written before images had
     * versions) as the set of its one image, whose version is {@link ImageMeasurements#UNVERSIONED}.
     */
    static MeasurementSet parseFormatOne(byte[] json) throws MeasurementsException {
        ObjectNode top = object(readTree(json), "the top level");
        onlyFields(top, "the top level", Set.of("version", "variant", "measurements", "nextKey"));
        long version = version(top.get("version"));
        Variant variant = variant(top.get("variant"));
        ObjectNode entries = object(top.get("measurements"), "\"measurements\"");
        Measurements measurements = measurements(variant, entries, "measurements file");
        return new MeasurementSet(version, variant, java.util.List.of(new ImageMeasurements(ImageMeasurements.UNVERSIONED, measurements)),
                java.util.List.of(), nextKey(top.get("nextKey")));
    }

    /** The JSON tree of a file no larger than {@link #MAX_BYTES}. */
    static JsonNode readTree(byte[] json) throws MeasurementsException {
        if (json.length > MAX_BYTES) {
            throw new MeasurementsException("measurements file is " + json.length + " bytes, over the limit " + MAX_BYTES);
        }
        try {
            return MAPPER.readTree(json);
        } catch (IOException e) {
            throw new MeasurementsException("measurements file is not valid JSON: " + (e instanceof JsonProcessingException j ? j.getOriginalMessage() : e.getMessage()), e);
        }
    }

    static Variant variant(JsonNode variantNode) throws MeasurementsException {
        if (variantNode == null || !variantNode.isTextual()) {
            throw new MeasurementsException("measurements file has no \"variant\" string");
        }
        return Variant.byId(variantNode.asText()).orElseThrow(() ->
                new MeasurementsException("unknown variant \"" + variantNode.asText() + "\""));
    }

    /** One image's {@code {"<pcr>": {"expected": ..., "warnOnly": ...}}}, covering every required PCR. */
    static Measurements measurements(Variant variant, JsonNode node, String where) throws MeasurementsException {
        ObjectNode entries = object(node, where);
        SortedMap<Integer, ExpectedValue> values = new TreeMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = entries.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            values.put(pcrIndex(e.getKey()), expected(e.getKey(), e.getValue()));
        }
        java.util.List<Integer> missing = REQUIRED_PCRS.stream().filter(pcr -> !values.containsKey(pcr)).toList();
        if (!missing.isEmpty()) {
            throw new MeasurementsException(where + " lacks PCR " + missing.stream().map(String::valueOf)
                    .collect(java.util.stream.Collectors.joining(", ")) + ": a measurement set must cover PCR " + REQUIRED_LIST);
        }
        return new Measurements(variant, values);
    }

    /** Absent, or a PEM public key of a kind sets are signed with: kept in its canonical spelling. */
    static java.util.Optional<MeasurementsKey> nextKey(JsonNode node) throws MeasurementsException {
        if (node == null) {
            return java.util.Optional.empty();
        }
        // One PEM block and nothing around it: text a PEM reader would skip has no place in a signed set.
        String text = node.isTextual() ? node.asText().strip() : "";
        if (!text.startsWith("-----BEGIN PUBLIC KEY-----") || !text.endsWith("-----END PUBLIC KEY-----")
                || text.indexOf("-----BEGIN", 1) >= 0) {
            throw new MeasurementsException("\"nextKey\" must be one PEM public key (BEGIN PUBLIC KEY) as a string");
        }
        try {
            return java.util.Optional.of(MeasurementsKey.of(node.asText()));
        } catch (MeasurementsException e) {
            throw new MeasurementsException("\"nextKey\": " + e.getMessage(), e);
        }
    }

    static long version(JsonNode node) throws MeasurementsException {
        if (node == null) {
            return 0;
        }
        if (!node.isIntegralNumber() || !node.canConvertToLong() || node.asLong() < 0) {
            throw new MeasurementsException("\"version\" must be a non-negative integer");
        }
        return node.asLong();
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
        boolean warnOnly = warn != null && warn.booleanValue();
        // A required PCR that only warns is one left out: any boot chain or node lock would pass.
        if (warnOnly && REQUIRED_PCRS.contains(Integer.parseInt(pcr))) {
            throw new MeasurementsException(where + ": \"warnOnly\" is refused on PCR " + REQUIRED_LIST
                    + ", which must match exactly");
        }
        return new ExpectedValue(HexFormat.of().parseHex(hex.asText()), warnOnly);
    }

    static ObjectNode object(JsonNode node, String where) throws MeasurementsException {
        if (!(node instanceof ObjectNode o)) {
            throw new MeasurementsException(where + " must be a JSON object");
        }
        return o;
    }

    static void onlyFields(ObjectNode node, String where, Set<String> allowed) throws MeasurementsException {
        for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
            String name = it.next();
            if (!allowed.contains(name)) {
                throw new MeasurementsException(where + " has unknown field \"" + name + "\"");
            }
        }
    }

    static byte[] write(Measurements m) {
        return write(m, -1, java.util.Optional.empty());
    }

    /**
     * Format 1, which only tests still write (as files from before image versions look): writers write format 2.
     *
     * @param version written first when not negative; a set without one reads back as version 0
     * @param nextKey written last, as the canonical PEM, when present
     */
    static byte[] write(Measurements m, long version, java.util.Optional<MeasurementsKey> nextKey) {
        ObjectNode root = MAPPER.createObjectNode();
        if (version >= 0) {
            root.put("version", version);
        }
        root.put("variant", m.variant().id());
        putEntries(root.putObject("measurements"), m);
        nextKey.ifPresent(k -> root.put("nextKey", k.pem()));
        return bytes(root);
    }

    static void putEntries(ObjectNode entries, Measurements m) {
        m.measurements().forEach((pcr, v) -> entries.putObject(Integer.toString(pcr))
                .put("expected", HexFormat.of().formatHex(v.expected()))
                .put("warnOnly", v.warnOnly()));
    }

    static ObjectNode newObject() {
        return MAPPER.createObjectNode();
    }

    static byte[] bytes(ObjectNode root) {
        try {
            return (MAPPER.writeValueAsString(root) + "\n").getBytes(StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException("a tree of strings and booleans always serialises", e);
        }
    }
}
