package dev.sextant.joinapi.reattest;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sextant.joinapi.FakeKeyService;
import dev.sextant.joinapi.TestJoinService;
import dev.sextant.joinapi.nodestate.AttestationState;
import dev.sextant.joinapi.nodestate.AttestationRecord;
import dev.sextant.joinapi.nodestate.NodeStateStore;
import dev.sextant.keys.KeyDerivation;
import dev.sextant.keys.member.DiscoveryCa;
import dev.sextant.keys.member.MemberCertificate;
import dev.sextant.keys.member.MemberCredentials;
import dev.sextant.keys.member.MemberKey;
import dev.sextant.keys.member.MemberRole;
import dev.sextant.keys.member.RevocationList;
import dev.sextant.serviceconfig.JoinServiceConfig;
import dev.sextant.tpmmanufacturer.testkit.Swtpm;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Optional;
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
    private TestJoinService service;
    private SwtpmNode member;
    private MemberKey memberKey;
    private byte[] clusterId;
    /** The cluster's discovery CA, as the join service derives it through the KMS. */
    private final DiscoveryCa ca = new DiscoveryCa(FakeKeyService.keyFor(KeyDerivation.DISCOVERY_CA));
    private SwtpmNode changing;

    @BeforeAll
    void start() throws Exception {
        Swtpm.assumeAvailable();
        service = new TestJoinService("cp-0");
        clusterId = service.cluster.clusterId();
        member = SwtpmNode.member(clusterId);
        // Its member certificate as its join ticket gave it, ten minutes of it left.
        memberKey = MemberKey.generate(new SecureRandom());
        member.withMember(new MemberCredentials(memberKey.privateKey(), ca.certifyMember(memberKey.publicKey(), "worker-0",
                MemberRole.WORKER, clusterId, Instant.now().minus(Duration.ofMinutes(50)), Duration.ofHours(1)), ca.publicKey()));
        changing = SwtpmNode.member(clusterId);
        // The operator's set is this image's, signed with the cluster's key; the EK CA is the member's TPM's.
        service.cluster.useMeasurements(member.imageMeasurements());
        service.cluster.trustEkCas(member.ekCa(), changing.ekCa());

        service.withoutKubernetes()
                .reAttesting("cp-0", Duration.ofSeconds(1), Duration.ofSeconds(3))
                .with(JoinServiceConfig.MEMBER_CERTIFICATE_VALIDITY, "2h")
                .start();
    }

    @AfterAll
    void stop() throws Exception {
        for (AutoCloseable c : new AutoCloseable[] {service, member, changing}) {
            if (c != null) {
                c.close();
            }
        }
    }

    @Test
    @DisplayName("a bound member with an endpoint is attested in etcd by the service holding reattest/holder, naming its image")
    void membersAttested() throws Exception {
        ReAttestationSettings settings = service.bean(ReAttestationSettings.class);
        assertEquals(Duration.ofSeconds(1), settings.period());
        assertEquals(16, settings.parallel());
        assertEquals(20, settings.missedPeriods());
        service.admin().put("/sextant/v1/bindings/node/worker-0", member.ak());
        service.admin().put("/sextant/v1/bindings/machine/" + member.ak() + "/node", "worker-0");
        service.admin().put("/sextant/v1/bindings/machine/" + member.ak() + "/role", "worker"); // renewals follow the bound role
        NodeStateStore store = service.bean(NodeStateStore.class);
        store.recordEndpoint("worker-0", member.endpoint());
        Instant deadline = Instant.now().plusSeconds(20);
        Optional<AttestationRecord> record = store.attestation("worker-0");
        while (record.map(r -> r.state() != AttestationState.ATTESTED).orElse(true) && Instant.now().isBefore(deadline)) {
            Thread.sleep(100);
            record = store.attestation("worker-0");
        }
        assertEquals(AttestationState.ATTESTED, record.orElseThrow().state(), "record: " + record);
        assertEquals(Optional.of("unversioned"), record.get().imageVersion());
        assertEquals(Optional.of("cp-0"), service.admin().get(ReAttestationDuty.HOLDER_KEY));
        assertTrue(service.bean(ReAttestationStartup.class).duty().isHolder());
    }

    @Test
    @DisplayName("after a round the member holds a renewed certificate from the holder: the discovery CA's, for its key, name, role and cluster, valid from the round for member-certificate-validity")
    void memberCertificateRenewed() throws Exception {
        service.admin().put("/sextant/v1/bindings/node/worker-0", member.ak());
        service.admin().put("/sextant/v1/bindings/machine/" + member.ak() + "/node", "worker-0");
        service.admin().put("/sextant/v1/bindings/machine/" + member.ak() + "/role", "worker"); // renewals follow the bound role
        service.bean(NodeStateStore.class).recordEndpoint("worker-0", member.endpoint());
        Instant asked = Instant.now();
        Instant deadline = asked.plusSeconds(20);
        while (member.member().certified().notAfter().isBefore(asked.plus(Duration.ofHours(1))) && Instant.now().isBefore(deadline)) {
            Thread.sleep(100);
        }
        MemberCertificate renewed = MemberCertificate.verify(member.member().certificate(), ca.publicKey(), Instant.now());
        assertTrue(renewed.notAfter().isAfter(asked.plus(Duration.ofHours(2)).minusSeconds(2)), "renewed until " + renewed.notAfter());
        assertTrue(!renewed.notAfter().isAfter(Instant.now().plus(Duration.ofHours(2))), "renewed until " + renewed.notAfter());
        assertArrayEquals(memberKey.publicKey(), renewed.publicKey());
        assertEquals("worker-0", renewed.nodeName());
        assertEquals(MemberRole.WORKER, renewed.role());
        assertArrayEquals(clusterId, renewed.clusterId());
    }

    @Test
    @DisplayName("a member the holder revokes (a changed PCR) is on the revocation list the holder writes to revocations/list: the discovery CA's, its version revocations/version, naming the key of its member certificate")
    void holderPublishesTheList() throws Exception {
        NodeStateStore store = service.bean(NodeStateStore.class);
        service.admin().put("/sextant/v1/bindings/node/worker-1", changing.ak());
        service.admin().put("/sextant/v1/bindings/machine/" + changing.ak() + "/node", "worker-1");
        byte[] memberKey = MemberKey.generate(new SecureRandom()).publicKey();
        store.recordJoin("worker-1", Optional.of(changing.endpoint()), Optional.of(memberKey)); // as its join ticket did
        Instant deadline = Instant.now().plusSeconds(20);
        while (store.attestation("worker-1").map(r -> r.state() != AttestationState.ATTESTED).orElse(true)
                && Instant.now().isBefore(deadline)) {
            Thread.sleep(100);
        }
        changing.extend(9);
        byte[] caPublicKey = new DiscoveryCa(FakeKeyService.keyFor(KeyDerivation.DISCOVERY_CA)).publicKey();
        deadline = Instant.now().plusSeconds(20);
        Optional<RevocationList> list = Optional.empty();
        while (list.map(l -> !l.revokes(memberKey)).orElse(true) && Instant.now().isBefore(deadline)) {
            Thread.sleep(100);
            list = service.admin().get("/sextant/v1/revocations/list")
                    .map(v -> RevocationList.verify(Base64.getDecoder().decode(v), caPublicKey, clusterId));
        }
        assertTrue(list.isPresent() && list.get().revokes(memberKey), "the list in etcd: " + list);
        assertTrue(store.revocation(changing.ak()).orElseThrow().reason().startsWith("PCR_MISMATCH"));
        assertEquals("cp-0", store.revocation(changing.ak()).orElseThrow().by());
        assertEquals(store.revocations().version(), list.get().version());
    }
}
