package dev.sextant.cli.remote;

import picocli.CommandLine;

/** HOST:PORT of a node's gRPC port, as {@code --endpoint} takes it; an IPv6 host goes in brackets. */
public record NodeEndpoint(String host, int port) {
    public static NodeEndpoint parse(String value) {
        int colon = value.lastIndexOf(':');
        if (colon <= 0 || colon == value.length() - 1) {
            throw new IllegalArgumentException("'" + value + "' is not HOST:PORT, e.g. 192.0.2.10:9000");
        }
        String host = value.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        int port;
        try {
            port = Integer.parseInt(value.substring(colon + 1));
        } catch (NumberFormatException e) {
            port = -1;
        }
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("'" + value + "' has no port number (1..65535) after the last ':'");
        }
        return new NodeEndpoint(host, port);
    }

    @Override
    public String toString() {
        return (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
    }

    /** Makes a malformed {@code --endpoint} a usage error that names the option. */
    public static final class Converter implements CommandLine.ITypeConverter<NodeEndpoint> {
        @Override
        public NodeEndpoint convert(String value) {
            try {
                return parse(value.strip());
            } catch (IllegalArgumentException e) {
                throw new CommandLine.TypeConversionException(e.getMessage());
            }
        }
    }
}
