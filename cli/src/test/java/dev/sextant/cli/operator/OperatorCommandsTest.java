package dev.sextant.cli.operator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sextant.joinapi.FakeKeyService;
import dev.sextant.keys.KeyDerivation;
import dev.sextant.keys.member.DiscoveryCa;
import dev.sextant.keys.member.MemberKey;
import dev.sextant.keys.member.RevocationList;
import java.nio.file.Files;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

@DisplayName("sextant cluster status and sextant revoke, against a real join service (etcd, gRPC, swtpm)")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class OperatorCommandsTest {
    private RunningJoinService join;
    /** The discovery key worker-0's member certificate certifies, as its join ticket kept it. */
    private final byte[] workerKey = MemberKey.generate(new SecureRandom()).publicKey();

    @BeforeAll
    void start() throws Exception {
        join = new RunningJoinService();
        join.bind("cp-0", "aa01", "control-plane");
        join.bind("worker-0", "aa02", "worker");
        join.bind("worker-1", "aa03", "worker");
        join.attested("cp-0", Instant.now().minusSeconds(12), "1.4.0");
        join.attested("worker-0", Instant.now().minusSeconds(40), "1.3.0");
        join.admin.put(RunningJoinService.V1 + "nodes/worker-0/member-key", HexFormat.of().formatHex(workerKey));
    }

    @AfterAll
    void stop() throws Exception {
        if (join != null) {
            join.close();
        }
    }

    private static List<String> columns(String line) {
        return Arrays.asList(line.trim().split("\\s{2,}"));
    }

    private static String line(String out, String node) {
        return out.lines().filter(l -> l.startsWith(node + " ")).findFirst().orElseThrow(() -> new AssertionError(node + " not in:\n" + out));
    }

    @Test
    @DisplayName("cluster status prints one line per node: name, role, image version, last attested (seconds ago), state, reason")
    void status() {
        RunningJoinService.Run run = join.operator("cluster", "status");
        assertEquals(0, run.exit(), run.err());
        assertEquals(3, run.out().lines().count(), run.out());
        List<String> cp = columns(line(run.out(), "cp-0"));
        assertEquals(List.of("cp-0", "control-plane", "1.4.0"), cp.subList(0, 3));
        int seconds = Integer.parseInt(cp.get(3).replace("s ago", ""));
        assertTrue(seconds >= 12 && seconds < 60, cp.get(3));
        assertEquals("attested", cp.get(4));
        assertEquals(List.of("worker-1", "worker", "-", "never", "unreachable", "not re-attested yet"), columns(line(run.out(), "worker-1")));
    }

    @Test
    @DisplayName("revoke NODE revokes its machine's AK (OPERATOR): cluster status shows it revoked, the discovery CA's list in revocations/list names its member key, and a second revoke keeps the first")
    void revoke() throws Exception {
        RunningJoinService.Run run = join.operator("revoke", "worker-0");
        assertEquals(0, run.exit(), run.err());
        assertTrue(run.out().startsWith("revoked node worker-0 at "), run.out());
        assertTrue(run.out().contains("(OPERATOR)"), run.out());
        assertTrue(join.admin.get(RunningJoinService.V1 + "revoked/aa02").orElseThrow().contains("\"reason\":\"OPERATOR\""));

        List<String> worker = columns(line(join.operator("cluster", "status").out(), "worker-0"));
        assertEquals("revoked", worker.get(4));
        assertEquals("OPERATOR", worker.get(5));
        assertEquals("1.3.0", worker.get(2), "what the last round found is kept");

        byte[] clusterId = KeyDerivation.clusterId(FakeKeyService.keyFor(KeyDerivation.MEASUREMENT_SECRET),
                Files.readAllBytes(join.cluster.dir.resolve("measurementSalt")));
        RevocationList list = RevocationList.verify(Base64.getDecoder().decode(join.admin.get(RunningJoinService.V1 + "revocations/list")
                .orElseThrow()), new DiscoveryCa(FakeKeyService.keyFor(KeyDerivation.DISCOVERY_CA)).publicKey(), clusterId);
        assertTrue(list.revokes(workerKey), "worker-0's member key is on the list");
        assertEquals(Long.parseLong(join.admin.get(RunningJoinService.V1 + "revocations/version").orElseThrow()), list.version());

        RunningJoinService.Run again = join.operator("revoke", "worker-0");
        assertEquals(0, again.exit(), again.err());
        assertTrue(again.out().startsWith("node worker-0 was revoked already, at "), again.out());
    }

    @Test
    @DisplayName("revoke of a name no machine is bound to: exit 2, naming it; nothing is written")
    void revokeUnknown() {
        long before = join.admin.get(RunningJoinService.V1 + "revocations/version").map(Long::parseLong).orElse(0L);
        RunningJoinService.Run run = join.operator("revoke", "worker-9");
        assertEquals(2, run.exit(), run.out());
        assertTrue(run.err().contains("no machine is bound to the node name worker-9"), run.err());
        assertEquals(Optional.of(before).filter(v -> v > 0),
                join.admin.get(RunningJoinService.V1 + "revocations/version").map(Long::parseLong));
    }
}
