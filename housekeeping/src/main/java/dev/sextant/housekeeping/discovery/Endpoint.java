package dev.sextant.housekeeping.discovery;

/** A control-plane join service address. */
public record Endpoint(String host, int port) {
    public Endpoint {
        if (host.isEmpty() || port < 1 || port > 65535) {
            throw new IllegalArgumentException("bad endpoint " + host + ":" + port);
        }
    }

    /** HOST:PORT, or [V6]:PORT. */
    public static Endpoint parse(String text) {
        String t = text.strip();
        int colon = t.lastIndexOf(':');
        if (colon <= 0) {
            throw new IllegalArgumentException("endpoint '" + text + "' is not HOST:PORT");
        }
        String host = t.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        try {
            return new Endpoint(host, Integer.parseInt(t.substring(colon + 1)));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("endpoint '" + text + "' has no numeric port", e);
        }
    }

    @Override
    public String toString() {
        return (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
    }
}
