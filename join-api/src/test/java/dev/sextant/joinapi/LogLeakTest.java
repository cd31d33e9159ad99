package dev.sextant.joinapi;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import ch.qos.logback.core.read.ListAppender;
import dev.sextant.proto.v1.IssueJoinTicketResponse;
import dev.sextant.proto.v1.IssueRejoinTicketRequest;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.NettyChannelBuilder;
import io.micronaut.context.ApplicationContext;
import io.micronaut.grpc.server.GrpcEmbeddedServer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

@DisplayName("Logging")
class LogLeakTest {

    @Test
    @DisplayName("with every logger at TRACE, a join, a rejoin and a failed join log no disk key, measurement secret or token secret")
    void noSecretsInLogs() throws Exception {
        ListAppender<ILoggingEvent> captured = new ListAppender<>();
        captured.start();
        List<String> secrets = new ArrayList<>();
        try (TestCluster cluster = new TestCluster()) {
            secrets.addAll(exercise(cluster, captured));
        }
        List<String> lines = captured.list.stream().map(LogLeakTest::render).toList();
        assertTrue(lines.stream().anyMatch(l -> l.contains("issued join ticket")), "the capture works");
        for (String secret : secrets) {
            assertFalse(lines.stream().anyMatch(l -> l.contains(secret)), "a log line contains " + secret);
        }
    }

    private static List<String> exercise(TestCluster cluster, ListAppender<ILoggingEvent> captured) throws Exception {
        Map<String, Object> props = new HashMap<>(cluster.properties());
        props.put("grpc.server.port", "0");
        props.put("logger.levels.dev.sextant", "TRACE");
        List<String> secrets = new ArrayList<>();
        try (ApplicationContext ctx = ApplicationContext.builder().properties(props).environments("test").start()) {
            GrpcEmbeddedServer server = ctx.getBean(GrpcEmbeddedServer.class);
            server.start();
            // Attached after the start: Micronaut's logging system reconfigures logback while starting,
            // which drops appenders added before. Keys only exist once requests flow anyway.
            Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
            Level rootLevel = root.getLevel();
            root.addAppender(captured);
            root.setLevel(Level.TRACE);
            ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", server.getPort()).usePlaintext().build();
            try {
                String uuid = JoinTicketTest.newUuid();
                IssueJoinTicketResponse t = TestCaller.as(channel, TestCaller.ak("leak")).issueJoinTicket(
                        JoinTicketTest.request(uuid, "leak-node"));
                TestCaller.as(channel, TestCaller.ak("leak"))
                        .issueRejoinTicket(IssueRejoinTicketRequest.newBuilder().setDiskUuid(uuid).build());
                cluster.kube.failWhen("POST", "/api/v1/namespaces/kube-system/secrets");
                assertThrows(StatusRuntimeException.class, () -> TestCaller.as(channel, TestCaller.ak("leak2"))
                        .issueJoinTicket(JoinTicketTest.request(JoinTicketTest.newUuid(), "leak-node-2")));
                secrets.addAll(encodings(t.getStateDiskKey().toByteArray()));
                secrets.addAll(encodings(t.getMeasurementSecret().toByteArray()));
                secrets.addAll(encodings(t.getDiscoveryKey().toByteArray()));
                String tokenSecret = t.getK3S().getToken().substring(t.getK3S().getToken().length() - 16);
                secrets.add(tokenSecret);
                secrets.add(Base64.getEncoder().encodeToString(tokenSecret.getBytes(StandardCharsets.UTF_8)));
            } finally {
                channel.shutdownNow();
                root.detachAppender(captured);
                root.setLevel(rootLevel);
            }
        }
        return secrets;
    }

    static String render(ILoggingEvent event) {
        String thrown = event.getThrowableProxy() == null ? "" : ThrowableProxyUtil.asString(event.getThrowableProxy());
        return event.getFormattedMessage() + " " + java.util.Arrays.toString(event.getArgumentArray()) + " " + thrown;
    }

    /** Hex (both cases) and base64 windows: a partial dump is a leak too. */
    static List<String> encodings(byte[] secret) {
        List<String> forms = new ArrayList<>();
        String hex = HexFormat.of().formatHex(secret);
        for (int i = 0; i + 16 <= hex.length(); i += 2) {
            forms.add(hex.substring(i, i + 16));
            forms.add(hex.substring(i, i + 16).toUpperCase(Locale.ROOT));
        }
        forms.add(Base64.getEncoder().encodeToString(secret).substring(0, 16));
        return forms;
    }
}
