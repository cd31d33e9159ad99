package dev.sextant.serviceconfig;

import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads typed values out of flat properties. A blank value counts as absent, because the services'
 * application.yml maps unset environment variables to "" ({@code ${SEXTANT_X:}}). Values are never
 * echoed back in errors for secrets; none of these settings is one (they name files, not contents).
 */
final class PropertyReader {
    // Micronaut's own duration syntax ("5s", "15m", "250ms"), so a value valid in application.yml stays valid.
    private static final Pattern SHORT_DURATION = Pattern.compile("(\\d+)(ms|s|m|h|d)");

    private final Map<String, String> properties;

    PropertyReader(Map<String, String> properties) {
        this.properties = Map.copyOf(properties);
    }

    /** {@code properties} as the map {@link #PropertyReader} reads. */
    static Map<String, String> asMap(Properties properties) {
        Map<String, String> map = new TreeMap<>();
        properties.stringPropertyNames().forEach(k -> map.put(k, properties.getProperty(k)));
        return map;
    }

    Optional<String> text(String key) {
        String value = properties.get(key);
        return value == null || value.isBlank() ? Optional.empty() : Optional.of(value.strip());
    }

    String text(String key, String defaultValue) {
        return text(key).orElse(defaultValue);
    }

    Optional<Path> path(String key) {
        Optional<String> value = text(key);
        if (value.isEmpty()) {
            return Optional.empty();
        }
        try {
            return Optional.of(Path.of(value.get()));
        } catch (InvalidPathException e) {
            throw new ConfigException(key + " is not a file path: " + e.getReason());
        }
    }

    Path path(String key, String defaultValue) {
        return path(key).orElse(Path.of(defaultValue));
    }

    Path requiredPath(String key) {
        return path(key).orElseThrow(() -> new ConfigException(key + " is not set (a file path)"));
    }

    boolean bool(String key, boolean defaultValue) {
        Optional<String> value = text(key);
        if (value.isEmpty()) {
            return defaultValue;
        }
        return switch (value.get().toLowerCase(java.util.Locale.ROOT)) {
            case "true" -> true;
            case "false" -> false;
            default -> throw new ConfigException(key + " must be true or false, not '" + value.get() + "'");
        };
    }

    int integer(String key, int defaultValue) {
        Optional<String> value = text(key);
        if (value.isEmpty()) {
            return defaultValue;
        }
        try {
            return Integer.parseInt(value.get());
        } catch (NumberFormatException e) {
            throw new ConfigException(key + " must be a whole number, not '" + value.get() + "'");
        }
    }

    Duration duration(String key, Duration defaultValue) {
        Optional<String> value = text(key);
        return value.isEmpty() ? defaultValue : parseDuration(key, value.get());
    }

    static Duration parseDuration(String key, String value) {
        Matcher m = SHORT_DURATION.matcher(value);
        Duration d;
        if (m.matches()) {
            long n;
            try {
                n = Long.parseLong(m.group(1));
            } catch (NumberFormatException e) {
                throw new ConfigException(key + " is too large: '" + value + "'");
            }
            d = switch (m.group(2)) {
                case "ms" -> Duration.ofMillis(n);
                case "s" -> Duration.ofSeconds(n);
                case "m" -> Duration.ofMinutes(n);
                case "h" -> Duration.ofHours(n);
                default -> Duration.ofDays(n);
            };
        } else {
            try {
                d = Duration.parse(value);
            } catch (DateTimeParseException e) {
                throw new ConfigException(key + " must be a duration such as 5s, 15m or PT30S, not '" + value + "'");
            }
        }
        if (d.isNegative() || d.isZero()) {
            throw new ConfigException(key + " must be a positive duration, not '" + value + "'");
        }
        return d;
    }

    /** The inverse of {@link #parseDuration}: the shortest form Micronaut and this reader both accept. */
    static String render(Duration d) {
        if (d.toMillis() % 1000 != 0) {
            return d.toMillis() + "ms";
        }
        long s = d.toSeconds();
        if (s % 3600 == 0) {
            return s / 3600 + "h";
        }
        return s % 60 == 0 ? s / 60 + "m" : s + "s";
    }

    static int port(String key, String value) {
        try {
            int port = Integer.parseInt(value.strip());
            if (port >= 0 && port <= 65535) {
                return port;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new ConfigException(key + " must be a TCP port (0-65535), not '" + value + "'");
    }
}
