package dev.sextant.cli.measure;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.HexFormat;
import java.util.Map;

/** The CLI's compact prediction form: {@code {"4":"<hex>","9":"<hex>","11":"<hex>"}}, keys in numeric order. */
final class PcrMapJson {
    private PcrMapJson() {
    }

    static String write(Map<Integer, byte[]> pcrs) {
        ObjectMapper mapper = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
        ObjectNode root = mapper.createObjectNode();
        pcrs.entrySet().stream().sorted(Map.Entry.comparingByKey())
                .forEach(e -> root.put(Integer.toString(e.getKey()), HexFormat.of().formatHex(e.getValue())));
        try {
            return mapper.writeValueAsString(root);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("an ObjectNode of strings always serialises", e);
        }
    }
}
