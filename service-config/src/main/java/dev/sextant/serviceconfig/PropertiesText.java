package dev.sextant.serviceconfig;

import java.util.Map;

/**
 * Flat properties in the {@code .properties} format, as a service's file on the node or a
 * ConfigMap's entry holds them: a comment line, then one {@code name=value} line per property in
 * the map's order. {@link java.util.Properties#store} would add a timestamp line, which breaks
 * repeatable rendering (an unchanged configuration must render to the same bytes).
 */
final class PropertiesText {
    private PropertiesText() {
    }

    static String render(String comment, Map<String, String> properties) {
        StringBuilder s = new StringBuilder("# ").append(comment).append('\n');
        properties.forEach((k, v) -> s.append(k).append('=').append(escape(v)).append('\n'));
        return s.toString();
    }

    static String escape(String value) {
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            switch (c) {
                case '\\' -> s.append("\\\\");
                case '\n' -> s.append("\\n");
                case '\r' -> s.append("\\r");
                case '\t' -> s.append("\\t");
                case '=', ':', '#', '!' -> s.append('\\').append(c);
                default -> {
                    if (c == ' ' && i == 0) {
                        s.append("\\ ");
                    } else if (c < 0x20 || c > 0x7e) {
                        s.append(String.format("\\u%04x", (int) c));
                    } else {
                        s.append(c);
                    }
                }
            }
        }
        return s.toString();
    }
}
