package dev.sextant.kms.attacks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.sextant.kms.KmsSocketServer;
import dev.sextant.kms.TestSecrets;
import dev.sextant.proto.v1.GetDataKeyRequest;
import dev.sextant.proto.v1.GetDataKeyResponse;
import dev.sextant.proto.v1.KeyServiceGrpc;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.NettyChannelBuilder;
import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.context.ApplicationContext;
import io.micronaut.runtime.server.EmbeddedServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * The KMS derives every disk key of the cluster, so only the join service may ask it. It has no TCP port:
 * it serves on a Unix socket in a directory of its own uid, and answers connections from the join service's
 * uid only (SO_PEERCRED). Each row starts a real KMS; whether a key was derived is read from the KMS's own
 * count of issued keys.
 */
@DisplayName("Attacks on the KMS")
class KmsAttacksTest {
    /** A uid that is not the test's (the test plays the join service): Debian's nobody. */
    private static final int STRANGER = 65534;
    private static final String KEY_ID = "measurementSecret";

    private final TestSecrets secrets = TestSecrets.golden();
    private final List<Path> made = new ArrayList<>();

    @AfterEach
    void cleanUp() throws IOException {
        secrets.close();
        for (Path dir : made) {
            try (Stream<Path> files = Files.walk(dir)) {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    @Test
    @DisplayName("a process of another uid that reaches the KMS socket (its directory opened to that uid's group): "
            + "the connection is closed unread, logged with its uid, and no key is derived; the join service's uid still gets its key")
    void otherUidIsRefused() throws Exception {
        // The socket's directory root:65534 02750: the stranger's group may search it, and the socket (made in
        // it, so of group 65534, mode 0660) lets it connect. Only the KMS's own check stands in its way.
        Path open = Files.createTempDirectory("sextant-kms-attack");
        made.add(open);
        Files.setAttribute(open, "unix:mode", 0711);
        Path dir = Files.createDirectory(open.resolve("kms"));
        Files.setAttribute(dir, "unix:gid", STRANGER);
        Files.setAttribute(dir, "unix:mode", 02750);
        Path socket = dir.resolve("kms.sock");
        Map<String, Object> properties = new HashMap<>(secrets.properties());
        properties.put("sextant.kms.socket", socket.toString());

        ListAppender<ILoggingEvent> log = capture();
        try (ApplicationContext kms = ApplicationContext.run(properties, "test")) {
            MeterRegistry registry = kms.getBean(MeterRegistry.class);
            double issued = issued(registry);
            double refused = refusedConnections(registry);

            Call stranger = Call.viaCurl(socket, List.of("setpriv", "--reuid=" + STRANGER, "--regid=" + STRANGER, "--clear-groups", "--"));
            assertNotEquals(0, stranger.exit, "curl as uid " + STRANGER + " got an answer: " + stranger);
            assertEquals(0, stranger.body.length, "not a byte of an answer: " + stranger);
            assertEquals(issued, issued(registry), "no key derived for the stranger");
            assertEquals(refused + 1, refusedConnections(registry), "its connection counted as refused");
            assertTrue(log.list.stream().anyMatch(e -> e.getLevel() == Level.WARN
                            && e.getFormattedMessage().contains("from uid " + STRANGER)
                            && e.getFormattedMessage().contains(socket.toString())),
                    () -> "a WARN names the refused uid and the socket: " + log.list);

            // The same call from the join service's uid (this test's) is answered: the refusal above was the uid's.
            Call joinService = Call.viaCurl(socket, List.of());
            assertEquals(0, joinService.exit, joinService.toString());
            assertEquals(32, joinService.key().length);
            assertEquals(issued + 1, issued(registry));
        } finally {
            release(log);
        }
    }

    @Test
    @DisplayName("kubectl port-forward, or any process in the KMS's network namespace, calling the KeyService on a TCP port: "
            + "no port of the KMS answers a key (its only TCP port is the management port, which serves no key)")
    void noTcpPortServesKeys() throws Exception {
        // As Application runs it: the context and its management HTTP server, started.
        try (EmbeddedServer server = ApplicationContext.run(EmbeddedServer.class, new HashMap<String, Object>(secrets.properties()), "test")) {
            ApplicationContext kms = server.getApplicationContext();
            kms.getBean(KmsSocketServer.class);
            double issued = issued(kms.getBean(MeterRegistry.class));
            List<InetSocketAddress> listening = ListeningTcp.ofThisProcess();
            assertFalse(listening.isEmpty(), "the management port at least listens: the scan sees this process's ports");
            List<InetSocketAddress> answered = new ArrayList<>();
            for (InetSocketAddress port : listening) {
                if (answersKeys(port)) {
                    answered.add(port);
                }
            }
            assertEquals(List.of(), answered, "TCP ports of the KMS process that answered a key request; all probed: " + listening);
            assertEquals(issued, issued(kms.getBean(MeterRegistry.class)), "no key derived");
        }
    }

    @Test
    @DisplayName("another user replacing the KMS socket with its own (a socket directory its group may write, or that others may enter): "
            + "the KMS does not start, naming the directory and its mode")
    void looseSocketDirectoryStopsTheKms() throws Exception {
        for (int mode : new int[] {0777, 0770, 0701}) {
            Path dir = Files.createDirectories(secrets.dir().resolve("loose-" + Integer.toOctalString(mode)));
            Files.setAttribute(dir, "unix:mode", mode);
            Map<String, Object> properties = new HashMap<>(secrets.properties());
            properties.put("sextant.kms.socket", dir.resolve("kms.sock").toString());
            Exception e = assertThrows(Exception.class, () -> ApplicationContext.run(properties, "test").close());
            String message = causes(e);
            assertTrue(message.contains(dir.toString()) && message.contains(String.format("%04o", mode)), message);
            assertFalse(Files.exists(dir.resolve("kms.sock")), "no socket made");
        }
    }

    private static boolean answersKeys(InetSocketAddress port) throws InterruptedException {
        ManagedChannel channel = NettyChannelBuilder.forAddress(port).usePlaintext().build();
        try {
            KeyServiceGrpc.newBlockingStub(channel).withDeadlineAfter(3, TimeUnit.SECONDS)
                    .getDataKey(GetDataKeyRequest.newBuilder().setDataKeyId(KEY_ID).setLength(32).build());
            return true;
        } catch (StatusRuntimeException expected) {
            return false;
        } finally {
            channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
    }

    private static double issued(MeterRegistry registry) {
        return registry.get("sextant.kms.keys.issued").counter().count();
    }

    private static double refusedConnections(MeterRegistry registry) {
        return registry.get("sextant.kms.connections.refused").counter().count();
    }

    private static String causes(Throwable e) {
        StringBuilder all = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) {
            all.append(t.getMessage()).append(" | ");
        }
        return all.toString();
    }

    private static ListAppender<ILoggingEvent> capture() {
        ListAppender<ILoggingEvent> appender = new ListAppender<>();
        appender.start();
        ((Logger) LoggerFactory.getLogger("dev.sextant.grpcsupport.unix")).addAppender(appender);
        return appender;
    }

    private static void release(ListAppender<ILoggingEvent> appender) {
        ((Logger) LoggerFactory.getLogger("dev.sextant.grpcsupport.unix")).detachAppender(appender);
    }

    /**
     * One GetDataKey call made by curl (HTTP/2 over the socket, a gRPC frame on stdin), run as the uid
     * {@code prefix} switches to: a real process of that uid, which the kernel reports to the KMS as such.
     */
    private record Call(int exit, byte[] body, String stderr) {
        static Call viaCurl(Path socket, List<String> prefix) throws IOException, InterruptedException {
            List<String> argv = new ArrayList<>(prefix);
            // -q first: no ~/.curlrc (the stranger could not read root's anyway).
            argv.addAll(List.of("curl", "-q", "-sS", "--max-time", "10", "--http2-prior-knowledge", "--unix-socket", socket.toString(),
                    "-H", "content-type: application/grpc", "-H", "te: trailers", "--data-binary", "@-",
                    "http://localhost/" + KeyServiceGrpc.getGetDataKeyMethod().getFullMethodName()));
            Process curl = new ProcessBuilder(argv).start();
            byte[] request = GetDataKeyRequest.newBuilder().setDataKeyId(KEY_ID).setLength(32).build().toByteArray();
            try (OutputStream in = curl.getOutputStream()) {
                in.write(ByteBuffer.allocate(5 + request.length).put((byte) 0).putInt(request.length).put(request).array());
            }
            byte[] body;
            try (InputStream out = curl.getInputStream()) {
                body = out.readAllBytes();
            }
            String stderr = new String(curl.getErrorStream().readAllBytes());
            if (!curl.waitFor(20, TimeUnit.SECONDS)) {
                curl.destroyForcibly();
                throw new IllegalStateException("curl did not end");
            }
            return new Call(curl.exitValue(), body, stderr);
        }

        byte[] key() {
            try {
                return GetDataKeyResponse.parseFrom(Arrays.copyOfRange(body, 5, body.length)).getDataKey().toByteArray();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        @Override
        public String toString() {
            return "exit " + exit + ", " + body.length + " bytes, stderr: " + stderr.strip();
        }
    }

    /** The TCP sockets this process listens on, from /proc: its socket descriptors matched with /proc/net/tcp{,6}. */
    static final class ListeningTcp {
        private static final String LISTEN = "0A";

        static List<InetSocketAddress> ofThisProcess() throws IOException {
            Set<String> inodes = new java.util.HashSet<>();
            try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
                for (Path fd : fds.toList()) {
                    try {
                        String target = Files.readSymbolicLink(fd).toString();
                        if (target.startsWith("socket:[")) {
                            inodes.add(target.substring(8, target.length() - 1));
                        }
                    } catch (IOException gone) {
                        // a descriptor closed while listing
                    }
                }
            }
            List<InetSocketAddress> listening = new ArrayList<>();
            for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
                List<String> lines = Files.readAllLines(Path.of(table));
                for (String line : lines.subList(1, lines.size())) {
                    String[] f = line.strip().split("\\s+");
                    if (f[3].equals(LISTEN) && inodes.contains(f[9])) {
                        String[] local = f[1].split(":");
                        listening.add(new InetSocketAddress(address(local[0]), Integer.parseInt(local[1], 16)));
                    }
                }
            }
            return listening;
        }

        /** /proc/net/tcp writes addresses as 32-bit words in host (little-endian) order; a wildcard is dialled on loopback. */
        private static InetAddress address(String hex) throws IOException {
            byte[] words = HexFormat.of().parseHex(hex);
            byte[] address = new byte[words.length];
            for (int w = 0; w < words.length; w += 4) {
                for (int b = 0; b < 4; b++) {
                    address[w + b] = words[w + 3 - b];
                }
            }
            InetAddress a = InetAddress.getByAddress(address);
            return a.isAnyLocalAddress() ? (address.length == 4 ? InetAddress.getByName("127.0.0.1") : InetAddress.getByName("::1")) : a;
        }
    }
}
