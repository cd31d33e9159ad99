package dev.sextant.localcluster.mini.operator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sextant.etcd.pki.EtcdCa;
import dev.sextant.etcd.testkit.EtcdInstalled;
import dev.sextant.etcd.testkit.TestEtcdCluster;
import dev.sextant.etcd.testkit.Tmpfs;
import dev.sextant.keys.KeyDerivation;
import dev.sextant.localcluster.mini.files.MiniLayout;
import dev.sextant.localcluster.mini.node.NodeRole;
import dev.sextant.operatorfiles.MasterSecretFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * mini asks a real etcd member how it stands, as a client of the etcd CA that the cluster's master
 * secret derives: the CA a control plane derives from the same secret (the KMS data key "etcd-ca").
 */
@DisplayName("mini as a client of the cluster's etcd")
class ClusterEtcdTest {
    @TempDir(factory = Tmpfs.class)
    Path dir;

    @Test
    @DisplayName("reaches a member whose certificates the master secret's etcd CA issued: a lone member leads, healthy;"
            + " its own key stays owner-only")
    void asksTheMember() throws Exception {
        EtcdInstalled.require();
        MiniLayout layout = new MiniLayout(dir.resolve("mini"));
        Files.createDirectories(layout.dir());
        MasterSecretFile secret = MasterSecretFile.loadOrCreate(layout.masterSecret());
        byte[] seed = new KeyDerivation(secret.key(), secret.salt()).dataKey(EtcdCa.KEY_ID, KeyDerivation.KEY_BYTES);
        try (TestEtcdCluster cluster = new TestEtcdCluster(dir.resolve("etcd"), seed)) {
            cluster.startFirst("control-plane-0");
            ClusterEtcd etcd = ClusterEtcd.client(layout);
            int port = cluster.member("control-plane-0").clientPort();
            assertEquals("leader, healthy", etcd.member(port).describe());
            assertEquals("leader, healthy", etcd.member(NodeRole.CONTROL_PLANE, Map.of(NodeRole.ETCD_CLIENT_PORT, port))
                    .describe());
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(
                    layout.etcdClientDir().resolve("sextant-mini.key"))));
        }
    }

    @Test
    @DisplayName("gets no answer from a member of another cluster's CA, and asks a worker nothing")
    void otherClusterAndWorker() throws Exception {
        EtcdInstalled.require();
        MiniLayout layout = new MiniLayout(dir.resolve("mini"));
        Files.createDirectories(layout.dir());
        MasterSecretFile.loadOrCreate(layout.masterSecret());
        byte[] otherSeed = new byte[32];
        new SecureRandom().nextBytes(otherSeed);
        try (TestEtcdCluster other = new TestEtcdCluster(dir.resolve("etcd"), otherSeed)) {
            other.startFirst("control-plane-0");
            ClusterEtcd etcd = ClusterEtcd.client(layout);
            String state = etcd.member(other.member("control-plane-0").clientPort()).describe();
            assertTrue(state.startsWith("unknown, no answer: "), state);
            assertEquals("-", etcd.member(NodeRole.WORKER, Map.of()).describe());
        }
    }
}
