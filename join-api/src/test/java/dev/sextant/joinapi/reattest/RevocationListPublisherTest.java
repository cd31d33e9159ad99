package dev.sextant.joinapi.reattest;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sextant.etcd.client.EtcdClientConfig;
import dev.sextant.etcd.client.Fence;
import dev.sextant.joinapi.TestClusterStore;
import dev.sextant.joinapi.clusterstore.EtcdConnection;
import dev.sextant.joinapi.nodestate.NodeStateStore;
import dev.sextant.keys.member.DiscoveryCa;
import dev.sextant.keys.member.RevocationList;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The publisher over real etcd: a fresh member per test, so each starts with no revocation and no list.
 * The member keys come from {@code nodes/<name>/member-key}, as the join service wires it.
 */
@DisplayName("The revocation list the holder and the operator's Revoke publish to revocations/list")
class RevocationListPublisherTest {
    private static final String LIST = "/sextant/v1/revocations/list";
    private final byte[] clusterId = random();
    private final byte[] caSeed = random();
    private TestClusterStore etcd;
    private EtcdConnection connection;
    private NodeStateStore store;

    @BeforeEach
    void start() {
        etcd = new TestClusterStore(1);
        connection = new EtcdConnection(new EtcdClientConfig(etcd.endpoints(), etcd.etcd().clientTls("cp-0"), Duration.ofSeconds(2)));
        store = new NodeStateStore(connection, Clock.systemUTC());
    }

    @AfterEach
    void stop() throws Exception {
        if (connection != null) {
            connection.close();
        }
        if (etcd != null) {
            etcd.close();
        }
    }

    private RevocationListPublisher publisher() {
        return new RevocationListPublisher(store, revoked -> store.memberKey(revoked.node()), caSeed::clone, clusterId::clone);
    }

    private String ak(int i) {
        return "000b" + HexFormat.of().formatHex(new byte[] {(byte) i}).repeat(32);
    }

    private RevocationList stored() throws Exception {
        return RevocationList.verify(store.revocationList().orElseThrow().encoded(), new DiscoveryCa(caSeed).publicKey(), clusterId);
    }

    @Test
    @DisplayName("is signed by the discovery CA for this cluster, versioned revocations/version, naming each revoked member's key from nodes/<name>/member-key")
    void signedListOfEveryRevocation() throws Exception {
        byte[] key1 = random();
        byte[] key2 = random();
        store.recordJoin("w-1", Optional.of("10.0.0.1:7443"), Optional.of(key1));
        store.recordJoin("w-2", Optional.empty(), Optional.of(key2));
        store.recordJoin("w-3", Optional.of("10.0.0.3:7443"), Optional.empty()); // joined without a discovery key
        assertEquals(Optional.of(HexFormat.of().formatHex(key1)), etcd.admin().get("/sextant/v1/nodes/w-1/member-key"));
        store.revoke("w-1", ak(1), "PCR_MISMATCH: PCR 9 differs", "cp-0");
        store.revoke("w-2", ak(2), "UNREACHABLE: missed 4 rounds in a row", "cp-0");
        store.revoke("w-3", ak(3), "OPERATOR", "operator");
        publisher().publish(Optional.empty());

        RevocationList list = stored();
        assertEquals(3, store.revocations().version());
        assertEquals(3, list.version());
        assertEquals(2, list.revokedKeys().size(), "w-3 has no member certificate to revoke");
        assertTrue(list.revokes(key1) && list.revokes(key2));
        byte[] encoded = store.revocationList().orElseThrow().encoded();
        assertThrows(IllegalArgumentException.class,
                () -> RevocationList.verify(encoded, new DiscoveryCa(random()).publicKey(), clusterId), "another CA's key");
        assertThrows(IllegalArgumentException.class,
                () -> RevocationList.verify(encoded, new DiscoveryCa(caSeed).publicKey(), random()), "another cluster");
        assertArrayEquals(encoded, publisher().signed(), "one list, one encoding: the bytes stored are the bytes signed");
        assertEquals(Optional.of(Base64.getEncoder().encodeToString(encoded)), etcd.admin().get(LIST), "base64 of the signed bytes");
    }

    @Test
    @DisplayName("a later revocation writes the next version; an equal or higher list already stored stays as it is")
    void onlyOverALowerVersion() throws Exception {
        byte[] key1 = random();
        store.recordJoin("w-1", Optional.empty(), Optional.of(key1));
        store.revoke("w-1", ak(1), "OPERATOR", "operator");
        RevocationListPublisher publisher = publisher();
        publisher.publish(Optional.empty());
        long first = store.revocationList().orElseThrow().modRevision();
        publisher().publish(Optional.empty()); // another join service, nothing new: equal version, not rewritten
        assertEquals(first, store.revocationList().orElseThrow().modRevision());

        byte[] key2 = random();
        store.recordJoin("w-2", Optional.empty(), Optional.of(key2));
        store.revoke("w-2", ak(2), "OPERATOR", "operator");
        publisher.publish(Optional.empty());
        assertEquals(2, stored().version());
        assertTrue(stored().revokes(key1) && stored().revokes(key2));

        // A list of a higher version (another publisher's, written while this one signed): kept.
        byte[] higher = new DiscoveryCa(caSeed).signRevocationList(RevocationList.of(clusterId, 9, List.of(key1, key2)));
        etcd.admin().put(LIST, Base64.getEncoder().encodeToString(higher));
        store.recordJoin("w-3", Optional.empty(), Optional.of(random()));
        store.revoke("w-3", ak(3), "OPERATOR", "operator");
        publisher.publish(Optional.empty());
        assertEquals(9, stored().version());
    }

    @Test
    @DisplayName("a holder whose tenure ended writes no list")
    void fencedOnTheTenure() throws Exception {
        store.recordJoin("w-1", Optional.empty(), Optional.of(random()));
        store.revoke("w-1", ak(1), "OPERATOR", "operator");
        // The tenure's key is gone (its lease expired): the fence on its create revision holds no more.
        Fence ended = new Fence(ReAttestationDuty.HOLDER_KEY, 4242);
        publisher().publish(Optional.of(ended));
        assertEquals(Optional.empty(), store.revocationList());
    }

    @Test
    @DisplayName("a list in revocations/list that the discovery CA did not sign counts as none and is replaced by the signed one")
    void foreignListReplaced() throws Exception {
        byte[] key1 = random();
        store.recordJoin("w-1", Optional.empty(), Optional.of(key1));
        store.revoke("w-1", ak(1), "OPERATOR", "operator");
        byte[] forged = new DiscoveryCa(random()).signRevocationList(RevocationList.of(clusterId, 1_000_000, List.of(random())));
        etcd.admin().put(LIST, Base64.getEncoder().encodeToString(forged));
        publisher().publish(Optional.empty());
        assertEquals(1, stored().version());
        assertTrue(stored().revokes(key1));
    }

    @Test
    @DisplayName("a list replaced in etcd after it was written (an older genuine one, or garbage) is written again at the publisher's next call; one left as written costs no new write")
    void withheldListWrittenAgain() throws Exception {
        byte[] key1 = random();
        byte[] key2 = random();
        store.recordJoin("w-1", Optional.empty(), Optional.of(key1));
        store.recordJoin("w-2", Optional.empty(), Optional.of(key2));
        store.revoke("w-1", ak(1), "OPERATOR", "operator");
        byte[] older = new DiscoveryCa(caSeed).signRevocationList(RevocationList.of(clusterId, 1, List.of(key1)));
        store.revoke("w-2", ak(2), "OPERATOR", "operator");
        RevocationListPublisher publisher = publisher();
        publisher.publish(Optional.empty());
        long written = store.revocationList().orElseThrow().modRevision();
        publisher.publish(Optional.empty());
        assertEquals(written, store.revocationList().orElseThrow().modRevision(), "nothing changed, nothing written");

        etcd.admin().put(LIST, Base64.getEncoder().encodeToString(older)); // w-2 left off the list
        publisher.publish(Optional.empty());
        assertEquals(2, stored().version());
        assertTrue(stored().revokes(key2));

        etcd.admin().put(LIST, "not a list");
        publisher.publish(Optional.empty());
        assertEquals(2, stored().version());
    }

    private static byte[] random() {
        byte[] b = new byte[32];
        new SecureRandom().nextBytes(b);
        return b;
    }
}
