package dev.sextant.joinapi.measurements;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * A measurement set as signed: its file's bytes and what its {@code .sig} file holds. In etcd
 * ({@code measurements/set}) it is {@code {"json": "<base64 of the bytes>", "signature": "<the .sig text>"}}:
 * the bytes stay the bytes signed (the set's digest names them in a key rotation record).
 */
public record SignedSet(byte[] json, String signature) {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    public SignedSet {
        json = json.clone();
    }

    @Override
    public byte[] json() {
        return json.clone();
    }

    public byte[] signatureBytes() {
        return signature.getBytes(StandardCharsets.UTF_8);
    }

    /** The value of {@code measurements/set}. */
    public String storeValue() {
        ObjectNode node = MAPPER.createObjectNode();
        node.put("json", Base64.getEncoder().encodeToString(json));
        node.put("signature", signature);
        return node.toString();
    }

    /**
     * Reads the value of {@code measurements/set}. Whoever can write etcd (the host holds its disk) may have
     * written anything there: this says only whether the value has the envelope's shape, the set is checked after.
     *
     * @throws IllegalArgumentException not the envelope (the message quotes none of the value)
     */
    public static SignedSet fromStoreValue(String value) {
        JsonNode node;
        try {
            node = MAPPER.readTree(value);
        } catch (IOException e) {
            throw new IllegalArgumentException("the value is not JSON");
        }
        if (node == null || !node.isObject() || node.size() != 2 || !node.path("json").isTextual() || !node.path("signature").isTextual()) {
            throw new IllegalArgumentException("the value is not {\"json\": <base64>, \"signature\": <text>}");
        }
        try {
            return new SignedSet(Base64.getDecoder().decode(node.get("json").asText()), node.get("signature").asText());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("its \"json\" is not base64");
        }
    }
}
