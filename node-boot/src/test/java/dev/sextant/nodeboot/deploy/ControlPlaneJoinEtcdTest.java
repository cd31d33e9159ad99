package dev.sextant.nodeboot.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sextant.etcd.client.EtcdClient;
import dev.sextant.etcd.client.EtcdMember;
import dev.sextant.etcd.members.EtcdMembership;
import dev.sextant.etcd.pki.EtcdCa;
import dev.sextant.etcd.pki.EtcdTlsFiles;
import dev.sextant.etcd.process.EtcdMemberConfig;
import dev.sextant.etcd.testkit.EtcdInstalled;
import dev.sextant.etcd.testkit.TestEtcdCluster;
import dev.sextant.etcd.testkit.Tmpfs;
import dev.sextant.keys.KeyDerivation;
import dev.sextant.serviceconfig.JoinServiceConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A control plane's join with Debian's etcd: a running cluster of one, whose CA is derived from the master
 * secret, stands for the cluster; the test adds the joining node's member as a learner, as the join service
 * does before it answers; then the node's deployer writes its files from that ticket and the image's unit runs
 * etcd from them ({@link RealEtcdNode}), advertising 127.0.0.1. Fails, never skips, without /usr/bin/etcd.
 */
@DisplayName("A control plane joining the cluster's etcd, for real")
class ControlPlaneJoinEtcdTest {
    private static final String KEY = "/sextant/v1/cluster/control-planes";
    private static final Duration CATCH_UP = Duration.ofSeconds(30);

    @TempDir(factory = Tmpfs.class)
    Path dir;

    private final byte[] secret = random();
    private final byte[] salt = random();

    private static byte[] random() {
        byte[] b = new byte[32];
        new SecureRandom().nextBytes(b);
        return b;
    }

    @Test
    @DisplayName("its member, started from the etcd.env the join wrote, joins the running cluster as the learner the join service added and the probe says learner; promoted, it votes, its join service reads the cluster's data through it, and a reboot finds it a member")
    void joinsAsLearnerThenVotes() throws Exception {
        EtcdInstalled.require();
        byte[] caSeed = new KeyDerivation(secret, salt).dataKey(EtcdCa.KEY_ID, KeyDerivation.KEY_BYTES);
        try (TestEtcdCluster cluster = new TestEtcdCluster(dir.resolve("cluster"), caSeed);
             RealEtcdNode node = new RealEtcdNode(dir.resolve("cp-1"), "127.0.0.1")) {
            assertEquals(ControlPlaneEtcd.ca(secret, salt).certificate(), cluster.ca().certificate(), "one CA per master secret");
            TestEtcdCluster.Member first = cluster.member("cp-0");
            cluster.start(EtcdMemberConfig.first("cp-0", first.dataDir(), first.clientUrl(), first.peerUrl(),
                    ControlPlaneEtcd.clusterToken(cluster.ca()), first.tls()));
            EtcdClient admin = cluster.client("join-service", "cp-0");
            admin.put(KEY, "3");

            // The join service's part, before it answers the joining control plane.
            EtcdMembership membership = new EtcdMembership(admin, Clock.systemUTC());
            EtcdAdvertisedUrls urls = node.advertised("cp-1");
            EtcdMember added = membership.addLearner(urls.peerUrl(), CATCH_UP);
            Map<String, String> members = membership.initialCluster("cp-1", urls.peerUrl());

            DeployedServices joined = node.services.joinControlPlane(DeployInputs.joining("cp-1", members,
                    DeployInputs.signed(dir.resolve("m"), DeployInputs.MEASUREMENTS), secret, salt));

            assertEquals(EtcdStanding.LEARNER, joined.etcd(), joined.summary() + "\n" + Files.readString(node.systemd.log()));
            EtcdMember listed = admin.members().stream().filter(m -> m.id() == added.id()).findFirst().orElseThrow();
            assertEquals("cp-1", listed.name(), "it started under its own name");
            assertTrue(listed.learner());
            assertEquals(List.of(urls.clientUrl()), listed.clientUrls(), "it advertises what its request named");
            assertEquals(2, admin.members().size(), "it joined the running cluster, not a new one of its own");

            String endpoint = joinServiceEndpoint(node);
            EtcdMember promoted = membership.promoteWhenCaughtUp(added.id(), endpoint, CATCH_UP);
            assertFalse(promoted.learner());
            assertEquals(EtcdStanding.MEMBER, EtcdStanding.of(new EtcdStatusProbe().await(endpoint, joinServiceTls(node), CATCH_UP)));
            try (EtcdClient own = node.joinServiceClient()) {
                assertEquals(Optional.of("3"), own.get(KEY), "its join service reads what the cluster holds through its own member");
            }

            node.systemd.stop(); // a reboot: the state disk keeps etcd/data and member.properties
            DeployedServices again = node.services.restart();

            assertEquals(EtcdStanding.MEMBER, again.etcd(), again.summary());
            String log = Files.readString(node.systemd.log());
            assertTrue(log.contains("\"msg\":\"restarting local member\""), "the second start found its data dir; the log:\n" + log);
            assertFalse(log.contains("\"level\":\"fatal\""), "etcd logged a fatal error:\n" + log);
        }
    }

    private static EtcdTlsFiles joinServiceTls(RealEtcdNode node) throws Exception {
        JoinServiceConfig.Etcd etcd = node.joinConfig().etcd();
        return new EtcdTlsFiles(etcd.caFile(), etcd.certFile(), etcd.keyFile());
    }

    private static String joinServiceEndpoint(RealEtcdNode node) throws Exception {
        return node.joinConfig().etcd().endpoints().get(0).substring("https://".length());
    }
}
