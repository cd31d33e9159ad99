package dev.sextant.joinapi.reattest;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sextant.etcd.client.EtcdClientConfig;
import dev.sextant.joinapi.TestClusterStore;
import dev.sextant.joinapi.clusterstore.EtcdConnection;
import dev.sextant.joinapi.nodestate.NodeStateStore;
import dev.sextant.keys.member.DiscoveryCa;
import dev.sextant.keys.member.RevocationList;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@DisplayName("The revocation list the holder publishes")
class RevocationListPublisherTest {
    private final byte[] clusterId = random();
    private final byte[] caSeed = random();
    private TestClusterStore etcd;
    private EtcdConnection connection;
    private NodeStateStore store;

    @BeforeAll
    void start() {
        etcd = new TestClusterStore(1);
        connection = new EtcdConnection(new EtcdClientConfig(etcd.endpoints(), etcd.etcd().clientTls("cp-0"), Duration.ofSeconds(2)));
        store = new NodeStateStore(connection, Clock.systemUTC());
    }

    @AfterAll
    void stop() throws Exception {
        if (connection != null) {
            connection.close();
        }
        if (etcd != null) {
            etcd.close();
        }
    }

    @Test
    @DisplayName("is signed by the discovery CA for this cluster, versioned revocations/version, naming each revoked member's key")
    void signedListOfEveryRevocation() throws Exception {
        String ak1 = "000b" + "11".repeat(32);
        String ak2 = "000b" + "22".repeat(32);
        byte[] key1 = random();
        byte[] key2 = random();
        Map<String, byte[]> keys = Map.of(ak1, key1, ak2, key2);
        store.revoke("w-1", ak1, "PCR_MISMATCH: PCR 9 differs", "cp-0");
        store.revoke("w-2", ak2, "UNREACHABLE: missed 4 rounds in a row", "cp-0");
        List<byte[]> handedOn = new ArrayList<>();
        RevocationListPublisher publisher = new RevocationListPublisher(store, ak -> Optional.ofNullable(keys.get(ak)),
                caSeed::clone, clusterId, handedOn::add);
        publisher.publish(null);
        assertEquals(1, handedOn.size());
        RevocationList list = RevocationList.verify(handedOn.get(0), new DiscoveryCa(caSeed).publicKey(), clusterId);
        assertEquals(store.revocations().version(), list.version());
        assertEquals(2, list.revokedKeys().size());
        assertTrue(list.revokes(key1) && list.revokes(key2));
        assertThrows(IllegalArgumentException.class,
                () -> RevocationList.verify(handedOn.get(0), new DiscoveryCa(random()).publicKey(), clusterId), "another CA's key");
        assertThrows(IllegalArgumentException.class,
                () -> RevocationList.verify(handedOn.get(0), new DiscoveryCa(caSeed).publicKey(), random()), "another cluster");
        assertArrayEquals(handedOn.get(0), publisher.signed(), "one list, one encoding");
    }

    private static byte[] random() {
        byte[] b = new byte[32];
        new SecureRandom().nextBytes(b);
        return b;
    }
}
