package dev.sextant.nodeboot.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sextant.etcd.client.EtcdClient;
import dev.sextant.etcd.testkit.Tmpfs;
import java.io.ByteArrayInputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Debian's etcd run from exactly what the deployer writes, through the image's unit file: init brings up a
 * member the join service's certificate reads and writes, and a reboot brings the same data back with
 * certificates issued afresh. Fails, never skips, without /usr/bin/etcd.
 */
@DisplayName("A control plane's etcd member, for real")
class ControlPlaneEtcdTest {
    private static final String KEY = "/sextant/v1/cluster/control-planes";

    @TempDir(factory = Tmpfs.class)
    Path dir;

    private final byte[] secret = random();
    private final byte[] salt = random();

    private static byte[] random() {
        byte[] b = new byte[32];
        new SecureRandom().nextBytes(b);
        return b;
    }

    private ServicesInput input() throws Exception {
        return DeployInputs.input(DeployInputs.signed(dir.resolve("m"), DeployInputs.MEASUREMENTS), secret, salt);
    }

    private static X509Certificate certificate(Path pem) throws Exception {
        return (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(new ByteArrayInputStream(Files.readAllBytes(pem)));
    }

    @Test
    @DisplayName("init starts etcd from the unit and the arguments the deployer wrote; the join service's client certificate from join.properties writes and reads it")
    void initStartsAMemberTheJoinServiceUses() throws Exception {
        try (RealEtcdNode node = new RealEtcdNode(dir.resolve("node"))) {
            DeployedServices deployed = node.services.deploy(input());
            assertEquals(EtcdStanding.MEMBER, deployed.etcd(), deployed.summary());
            assertEquals(List.of("sextant-etcd.service"), node.systemd.commands().get(0).subList(2, 3), "etcd first");
            try (EtcdClient join = node.joinServiceClient()) {
                join.put(KEY, "5");
                assertEquals(Optional.of("5"), join.get(KEY));
            }
            String log = Files.readString(node.systemd.log());
            assertTrue(log.contains("\"msg\":\"serving client traffic securely\""), "etcd serves TLS only; its log:\n" + log);
            assertTrue(!log.contains("\"level\":\"error\"") && !log.contains("\"level\":\"fatal\""), "etcd logged an error:\n" + log);
        }
    }

    @Test
    @DisplayName("a reboot issues etcd's certificates again from the master secret on the disk and starts etcd on its data dir: what init wrote is still there")
    void rebootKeepsTheData() throws Exception {
        try (RealEtcdNode node = new RealEtcdNode(dir.resolve("node"))) {
            node.services.deploy(input());
            try (EtcdClient join = node.joinServiceClient()) {
                join.put(KEY, "5");
            }
            Path member = node.dir.resolve("services/etcd/pki/member/" + DeployInputs.NODE + ".crt");
            X509Certificate before = certificate(member);
            node.systemd.stop(); // the node goes down; the state disk keeps etcd/data

            DeployedServices again = node.services.restart();

            assertEquals(EtcdStanding.MEMBER, again.etcd(), again.summary());
            X509Certificate after = certificate(member);
            assertNotEquals(before.getSerialNumber(), after.getSerialNumber(), "issued again");
            assertEquals(before.getIssuerX500Principal(), after.getIssuerX500Principal());
            after.verify(ControlPlaneEtcd.ca(secret, salt).certificate().getPublicKey());
            try (EtcdClient join = node.joinServiceClient()) {
                assertEquals(Optional.of("5"), join.get(KEY), "nothing in etcd is lost across a reboot");
            }
            String log = Files.readString(node.systemd.log());
            assertTrue(log.contains("\"msg\":\"restarting local member\""),
                    "the second start found its data dir and ignored --initial-cluster-state=new; the log:\n" + log);
        }
    }
}
