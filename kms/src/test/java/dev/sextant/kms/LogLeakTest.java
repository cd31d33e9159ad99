package dev.sextant.kms;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import ch.qos.logback.core.read.ListAppender;
import dev.sextant.proto.v1.GetDataKeyRequest;
import dev.sextant.proto.v1.GetDataKeysRequest;
import dev.sextant.proto.v1.KeyServiceGrpc;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.micronaut.context.ApplicationContext;
import dev.sextant.grpcsupport.unix.UnixSocketChannel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

@DisplayName("Logging")
class LogLeakTest {

    @Test
    @DisplayName("with every logger at TRACE, from start to shutdown, no log line contains a key, the secret or the salt")
    void noSecretBytesInLogs() {
        Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        Logger kms = (Logger) LoggerFactory.getLogger("dev.sextant.kms");
        Level rootLevel = root.getLevel();
        Level kmsLevel = kms.getLevel();
        ListAppender<ILoggingEvent> captured = new ListAppender<>();
        captured.start();
        root.addAppender(captured);
        root.setLevel(Level.TRACE);
        kms.setLevel(Level.TRACE);
        List<byte[]> secrets = new ArrayList<>(List.of(TestSecrets.SECRET, TestSecrets.SALT));
        try (TestSecrets files = TestSecrets.golden()) {
            secrets.addAll(exerciseService(files));
        } finally {
            root.detachAppender(captured);
            root.setLevel(rootLevel);
            kms.setLevel(kmsLevel);
        }
        List<String> lines = captured.list.stream().map(LogLeakTest::render).toList();
        assertTrue(lines.stream().anyMatch(l -> l.contains("issued data key id=measurementSecret length=32")),
                "the capture works: the DEBUG line for an issued key must be there");
        for (byte[] secret : secrets) {
            for (String form : encodings(secret)) {
                assertFalse(lines.stream().anyMatch(l -> l.contains(form)), "a log line contains " + form);
            }
        }
    }

    /** Starts the service, asks for keys (and one refused request), stops it; returns the keys it issued. */
    private static List<byte[]> exerciseService(TestSecrets files) {
        List<byte[]> keys = new ArrayList<>();
        try (ApplicationContext ctx = ApplicationContext.run(files.contextProperties(), "test")) {
            UnixSocketChannel socket = new UnixSocketChannel(ctx.getBean(KmsSocketServer.class).socket());
            ManagedChannel channel = socket.channel();
            try {
                KeyServiceGrpc.KeyServiceBlockingStub stub = KeyServiceGrpc.newBlockingStub(channel);
                for (String id : List.of("measurementSecret", "6f8c2e1a-3b4d-4e5f-8a9b-0c1d2e3f4a5b", "clusterID")) {
                    keys.add(stub.getDataKey(GetDataKeyRequest.newBuilder().setDataKeyId(id).setLength(32).build())
                            .getDataKey().toByteArray());
                }
                stub.getDataKeys(GetDataKeysRequest.newBuilder().addDataKeyIds("discoveryKey").addDataKeyIds("discoveryCa")
                        .setLength(32).build()).getDataKeysList().forEach(k -> keys.add(k.toByteArray()));
                try {
                    stub.getDataKey(GetDataKeyRequest.newBuilder().setDataKeyId("bad/id").setLength(32).build());
                } catch (StatusRuntimeException expected) {
                    // refused; only its log lines matter here
                }
            } finally {
                closeQuietly(socket);
            }
        }
        return keys;
    }

    private static void closeQuietly(UnixSocketChannel socket) {
        try {
            socket.close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static String render(ILoggingEvent event) {
        String thrown = event.getThrowableProxy() == null ? "" : ThrowableProxyUtil.asString(event.getThrowableProxy());
        return event.getFormattedMessage() + " " + Arrays.toString(event.getArgumentArray()) + " " + thrown;
    }

    /** The ways a byte array typically ends up in a log line; 8-byte windows catch partial dumps too. */
    private static List<String> encodings(byte[] secret) {
        List<String> forms = new ArrayList<>();
        String hex = HexFormat.of().formatHex(secret);
        for (int i = 0; i + 16 <= hex.length(); i += 2) {
            forms.add(hex.substring(i, i + 16));
            forms.add(hex.substring(i, i + 16).toUpperCase(Locale.ROOT));
        }
        forms.add(Base64.getEncoder().encodeToString(secret).substring(0, 16));
        forms.add(Arrays.toString(Arrays.copyOf(secret, 8)).replace("]", ""));
        return forms;
    }
}
