package dev.sextant.etcd.process;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sextant.etcd.pki.EtcdCa;
import dev.sextant.etcd.pki.EtcdTlsFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What the launcher says when etcd cannot run; starting and stopping real members is in the cluster tests. */
@DisplayName("EtcdProcess: when etcd is missing or exits at once")
class EtcdProcessTest {
    @TempDir
    Path dir;

    @Test
    @DisplayName("an etcd binary that is not installed fails the start, naming Debian's etcd-server package")
    void missingBinary() {
        IOException e = assertThrows(IOException.class, () -> EtcdProcess.start(dir.resolve("no-etcd"), config(), dir.resolve("log")));
        assertTrue(e.getMessage().contains("etcd-server"), e.getMessage());
    }

    @Test
    @DisplayName("an etcd that exits before it answers fails the wait at once, with its exit status and the end of its log")
    void exitsAtOnce() throws Exception {
        Path fake = dir.resolve("etcd");
        Files.writeString(fake, "#!/bin/sh\necho 'etcd: refusing to start: some reason' >&2\nexit 3\n");
        assertTrue(fake.toFile().setExecutable(true));
        try (EtcdProcess p = EtcdProcess.start(fake, config(), dir.resolve("etcd.log"))) {
            long start = System.nanoTime();
            IOException e = assertThrows(IOException.class, () -> p.awaitReady(Duration.ofSeconds(20)));
            assertTrue(e.getMessage().contains("exited with status 3"), e.getMessage());
            assertTrue(e.getMessage().contains("refusing to start: some reason"), e.getMessage());
            assertTrue(System.nanoTime() - start < Duration.ofSeconds(10).toNanos(), "waited for a process that had exited");
            assertFalse(p.isAlive());
        }
    }

    private EtcdMemberConfig config() {
        EtcdCa ca = new EtcdCa(new byte[32], new SecureRandom());
        EtcdTlsFiles tls = EtcdTlsFiles.write(dir.resolve("tls"), "cp-0", ca.certificate(),
                ca.issueMember("cp-0", List.of(), List.of(), Instant.now(), Duration.ofDays(1)));
        return EtcdMemberConfig.first("cp-0", dir.resolve("data"), "https://127.0.0.1:1", "https://127.0.0.1:2", "t", tls);
    }
}
