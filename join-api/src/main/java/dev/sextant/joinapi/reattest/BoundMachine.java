package dev.sextant.joinapi.reattest;

import java.util.Objects;

/**
 * A machine the re-attestation duty asks: the node name, the AK bound to that name
 * ({@code bindings/node/<name>}, lower-case hex) and where it last said its VerifyService answers
 * ({@code nodes/<name>/endpoint}, "host:port"). The endpoint is the node's word and decides only where
 * to ask: the answer must come from {@code boundAk}. {@code role} is the machine's bound role
 * ({@code bindings/machine/<ak>/role}, {@code control-plane} or {@code worker}): a member certificate is
 * renewed only for that role.
 */
public record BoundMachine(String name, String boundAk, String endpoint, String role) {
    public BoundMachine {
        Objects.requireNonNull(role, "role");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(boundAk, "boundAk");
        Objects.requireNonNull(endpoint, "endpoint");
    }

    /** The endpoint's host (an IPv6 literal without its brackets). */
    String host() {
        String host = endpoint.substring(0, endpoint.lastIndexOf(':'));
        return host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
    }

    int port() {
        return Integer.parseInt(endpoint.substring(endpoint.lastIndexOf(':') + 1));
    }

    /** Whether the endpoint is "host:port" with a port in range: a node's word, checked before it is dialled. */
    boolean endpointWellFormed() {
        int colon = endpoint.lastIndexOf(':');
        if (colon <= 0 || colon == endpoint.length() - 1 || endpoint.length() > 262) {
            return false;
        }
        try {
            int port = port();
            return port > 0 && port < 65536 && host().chars().noneMatch(c -> c <= ' ' || c == '/' || c == '@');
        } catch (NumberFormatException e) {
            return false;
        }
    }
}
