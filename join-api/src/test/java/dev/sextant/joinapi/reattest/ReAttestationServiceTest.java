package dev.sextant.joinapi.reattest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sextant.attestation.policy.MeasurementsFile;
import dev.sextant.joinapi.FakeKeyService;
import dev.sextant.joinapi.TestCluster;
import dev.sextant.joinapi.TestClusterStore;
import dev.sextant.joinapi.nodestate.AttestationState;
import dev.sextant.joinapi.nodestate.AttestationRecord;
import dev.sextant.joinapi.nodestate.NodeStateStore;
import dev.sextant.keys.KeyDerivation;
import dev.sextant.serviceconfig.JoinServiceConfig;
import dev.sextant.tpmmanufacturer.testkit.Swtpm;
import io.micronaut.context.ApplicationContext;
import java.io.StringWriter;
import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The duty as the join service starts it: its own settings, its etcd client, its KMS (the cluster ID),
 * its set in force and EK CA; no part built by hand.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@DisplayName("The join service re-attests its cluster's members from start-up")
class ReAttestationServiceTest {
    private TestCluster cluster;
    private TestClusterStore etcd;
    private SwtpmNode member;
    private ApplicationContext service;

    @BeforeAll
    void start() throws Exception {
        Swtpm.assumeAvailable();
        cluster = new TestCluster();
        etcd = new TestClusterStore(1);
        byte[] salt = Files.readAllBytes(cluster.dir.resolve("measurementSalt"));
        byte[] clusterId = KeyDerivation.clusterId(FakeKeyService.keyFor(KeyDerivation.MEASUREMENT_SECRET), salt);
        member = SwtpmNode.member(clusterId);
        // The operator's set is this image's, signed with the cluster's key; the EK CA is the member's TPM's.
        Files.write(cluster.measurements, member.imageMeasurements().toJson());
        MeasurementsFile.sign(cluster.measurements, pem(cluster.signingKey.getPrivate()));
        Files.writeString(cluster.ekCa, pem(member.ekCa()));

        Map<String, Object> p = new HashMap<>(etcd.joinService(cluster, "cp-0"));
        p.put(JoinServiceConfig.KUBERNETES_ENABLED, "false");
        p.put("grpc.server.port", "0");
        p.put("micronaut.server.port", "-1");
        p.put("sextant.join.reattest.enabled", "true");
        p.put("sextant.join.reattest.period", "1s");
        p.put("sextant.join.reattest.lease", "3s");
        p.put("sextant.join.reattest.holder-name", "cp-0");
        service = ApplicationContext.builder().properties(p).environments("test").start();
    }

    @AfterAll
    void stop() throws Exception {
        for (AutoCloseable c : new AutoCloseable[] {service, member, etcd, cluster}) {
            if (c != null) {
                c.close();
            }
        }
    }

    @Test
    @DisplayName("a bound member with an endpoint is attested in etcd by the service holding reattest/holder, naming its image")
    void membersAttested() throws Exception {
        ReAttestationSettings settings = service.getBean(ReAttestationSettings.class);
        assertEquals(Duration.ofSeconds(1), settings.period());
        assertEquals(16, settings.parallel());
        assertEquals(20, settings.missedPeriods());
        etcd.admin().put("/sextant/v1/bindings/node/worker-0", member.ak());
        etcd.admin().put("/sextant/v1/bindings/machine/" + member.ak() + "/node", "worker-0");
        NodeStateStore store = service.getBean(NodeStateStore.class);
        store.recordEndpoint("worker-0", member.endpoint());
        Instant deadline = Instant.now().plusSeconds(20);
        Optional<AttestationRecord> record = store.attestation("worker-0");
        while (record.map(r -> r.state() != AttestationState.ATTESTED).orElse(true) && Instant.now().isBefore(deadline)) {
            Thread.sleep(100);
            record = store.attestation("worker-0");
        }
        assertEquals(AttestationState.ATTESTED, record.orElseThrow().state(), "record: " + record);
        assertEquals(Optional.of("unversioned"), record.get().imageVersion());
        assertEquals(Optional.of("cp-0"), etcd.admin().get(ReAttestationDuty.HOLDER_KEY));
        assertTrue(service.getBean(ReAttestationStartup.class).duty().isHolder());
    }

    private static String pem(Object o) throws Exception {
        StringWriter s = new StringWriter();
        try (JcaPEMWriter w = new JcaPEMWriter(s)) {
            w.writeObject(o);
        }
        return s.toString();
    }
}
