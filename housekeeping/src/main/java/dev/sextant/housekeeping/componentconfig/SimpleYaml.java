package dev.sextant.housekeeping.componentconfig;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Byte-stable YAML for component configuration: maps keep the order they are given, strings are
 * always double-quoted (a SAN like "on" or "1e3" stays a string), numbers and booleans are bare,
 * lists hold scalars. Values are validated settings; escaping keeps a bad one from breaking the file.
 */
public final class SimpleYaml {
    public static final String HEADER = "# Written by the sextant node bootstrapper; do not edit.";

    private SimpleYaml() {}

    /** The header line, then {@code entries}; null and empty values are left out so components use their defaults. */
    public static String render(Map<String, ?> entries) {
        List<String> lines = new ArrayList<>();
        lines.add(HEADER);
        write(entries, "", lines);
        return String.join("\n", lines) + "\n";
    }

    private static void write(Map<String, ?> entries, String indent, List<String> lines) {
        entries.forEach((key, value) -> {
            if (value == null || value instanceof String s && s.isEmpty()
                    || value instanceof List<?> l && l.isEmpty() || value instanceof Map<?, ?> m && m.isEmpty()) {
                return;
            }
            if (value instanceof List<?> list) {
                lines.add(indent + key + ":");
                list.forEach(item -> lines.add(indent + "  - " + scalar(item)));
            } else if (value instanceof Map<?, ?> map) {
                lines.add(indent + key + ":");
                @SuppressWarnings("unchecked")
                Map<String, ?> nested = (Map<String, ?>) map;
                write(nested, indent + "  ", lines);
            } else {
                lines.add(indent + key + ": " + scalar(value));
            }
        });
    }

    static String scalar(Object value) {
        if (value instanceof Number || value instanceof Boolean) {
            return value.toString();
        }
        return "\"" + value.toString().replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n") + "\"";
    }
}
