package dev.sextant.tpm.transport;

import java.io.IOException;
import java.nio.file.Path;

/**
 * Where the TPM is, as the CLI's {@code --tpm} argument names it: {@code swtpm:HOST:PORT} or
 * {@code device:/dev/tpmrm0}. Parsing is strict so a typo fails at startup, not at first quote.
 */
public sealed interface TpmTarget {
    TpmTransport open() throws IOException;

    /** The argument form, such that {@code parse(t.toArgument())} equals {@code t}. */
    String toArgument();

    record Swtpm(String host, int port) implements TpmTarget {
        public Swtpm {
            if (host.isEmpty() || port < 1 || port > 65535) {
                throw new IllegalArgumentException("swtpm target needs a host and a port in 1..65535");
            }
        }

        @Override
        public TpmTransport open() throws IOException { return new SwtpmSocketTransport(host, port); }

        @Override
        public String toArgument() { return "swtpm:" + host + ":" + port; }
    }

    record Device(Path path) implements TpmTarget {
        @Override
        public TpmTransport open() throws IOException { return new DeviceTransport(path); }

        @Override
        public String toArgument() { return "device:" + path; }
    }

    static TpmTarget parse(String argument) {
        if (argument.startsWith("device:")) {
            String path = argument.substring("device:".length());
            if (!path.startsWith("/")) {
                throw new IllegalArgumentException("--tpm device:PATH needs an absolute path, got '" + argument + "'");
            }
            return new Device(Path.of(path));
        }
        if (argument.startsWith("swtpm:")) {
            String rest = argument.substring("swtpm:".length());
            int colon = rest.lastIndexOf(':');
            if (colon <= 0) {
                throw new IllegalArgumentException("--tpm swtpm:HOST:PORT is missing HOST or PORT in '" + argument + "'");
            }
            return new Swtpm(rest.substring(0, colon), parsePort(rest.substring(colon + 1), argument));
        }
        throw new IllegalArgumentException(
                "--tpm must be swtpm:HOST:PORT or device:/dev/tpmrm0, got '" + argument + "'");
    }

    private static int parsePort(String port, String argument) {
        try {
            return Integer.parseInt(port);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--tpm port is not a number in '" + argument + "'", e);
        }
    }
}
