package dev.sextant.nodeboot.initserver;

import com.google.protobuf.ByteString;
import dev.sextant.nodeboot.bringup.BootstrapStatus;
import dev.sextant.nodeboot.image.OsRelease;
import dev.sextant.nodeboot.bringup.FakeKubernetes;
import dev.sextant.nodeboot.bringup.TestNode;
import dev.sextant.diskcrypt.FakeLuks;
import dev.sextant.nodeboot.kubernetes.DriverResult;
import dev.sextant.nodeboot.lifecycle.LifecycleSettings;
import dev.sextant.nodeboot.lifecycle.ProcessExit;
import dev.sextant.nodeboot.nodelock.LockHolder;
import dev.sextant.proto.v1.InitRequest;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An init whose secret and fields pass but whose bring-up fails: the operator gets one failure, then
 * the node's log. Over a {@link FakeLuks} disk, so it runs without cryptsetup (InitEndpointTest
 * covers the endpoint over aTLS with a real disk, where a second init is refused before any bring-up).
 */
class InitFailureJournalTest {
    private static final byte[] INIT_SECRET = "correct horse battery staple 32b".getBytes(StandardCharsets.UTF_8);

    @TempDir
    Path dir;

    @Test
    @DisplayName("an init on a node another path (join) locked first fails naming the lock holder, and the node's log follows the failure")
    void failureCarriesTheNodeLog() throws Exception {
        try (TestNode node = new TestNode(Files.createDirectories(dir.resolve("node")), new FakeLuks(), id -> { },
                new FakeKubernetes(new DriverResult.Started(new byte[0])))) {
            node.lock.tryLockOnce(LockHolder.JOIN, new byte[32], new dev.sextant.nodeboot.nodelock.FirstBootstrap(new byte[32], new byte[32], false));
            Path hash = Files.writeString(dir.resolve("hash"), InitSecretHash.format(new byte[16], INIT_SECRET));
            Path log = Files.writeString(dir.resolve("node.log"), "bootstrapper: the log an operator gets after a failure\n");
            InitSettings settings = new InitSettings(hash, log, false, "node-a", null);
            var status = new BootstrapStatus(new LifecycleSettings(false, Duration.ZERO), node.disk, node.diskSettings, new ProcessExit(),
                    new OsRelease(java.nio.file.Path.of("/usr/lib/os-release")));
            var endpoint = new InitEndpoint(settings, new InitFlow(node.bringUp, node.disk, new NodeIdentity(settings)),
                    new JournalSource(settings), status, node.disk);

            InitResponses received = new InitResponses();
            endpoint.init(InitRequest.newBuilder().setInitSecret(ByteString.copyFrom(INIT_SECRET))
                    .setMasterSecret(ByteString.copyFrom(new byte[32])).setMasterSalt(ByteString.copyFrom(new byte[32]))
                    .setMeasurementSalt(ByteString.copyFrom(new byte[32])).build(), received);

            assertNull(received.error, () -> "the stream ended in an error: " + received.error);
            assertTrue(received.completed, "the stream was completed");
            assertEquals("node is already locked by join", received.values.get(0).getFailure().getError(), received.values::toString);
            String journal = received.values.stream().skip(1).map(r -> r.getJournalChunk().toStringUtf8()).reduce("", String::concat);
            assertTrue(journal.contains("the log an operator gets after a failure"), journal);
        }
    }
}
