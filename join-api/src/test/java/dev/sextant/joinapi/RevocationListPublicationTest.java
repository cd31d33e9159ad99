package dev.sextant.joinapi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import dev.sextant.etcd.client.EtcdClient;
import dev.sextant.joinapi.nodestate.NodeStateStore;
import dev.sextant.joinapi.reattest.RevocationPublisher;
import dev.sextant.keys.KeyDerivation;
import dev.sextant.keys.member.DiscoveryCa;
import dev.sextant.keys.member.MemberCertificate;
import dev.sextant.keys.member.MemberKey;
import dev.sextant.keys.member.RevocationList;
import dev.sextant.proto.v1.IssueJoinTicketRequest;
import dev.sextant.proto.v1.IssueJoinTicketResponse;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The join service's part of the revocation list, over real etcd and gRPC: a join keeps the discovery key its
 * member certificate certifies, and a revocation leaves the discovery CA's list in {@code revocations/list}
 * (what each control plane's bootstrapper hands to discovery). The publisher is the service's own bean, the
 * one the operator's {@code Revoke} calls and the re-attestation holder runs; the KMS is the test's.
 */
@DisplayName("The join service keeps members' discovery keys and publishes the revocation list to the cluster store")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RevocationListPublicationTest {
    private static final String V1 = "/sextant/v1/";
    private static final byte[] INIT_AK = TestCaller.ak("publication-init-node");

    @AutoClose
    private final TestJoinService service = new TestJoinService("join-a");
    private EtcdClient admin;
    private NodeStateStore nodes;

    @BeforeAll
    void start() {
        service.initNode(INIT_AK, "publication-cp-0").start();
        admin = service.admin();
        nodes = service.bean(NodeStateStore.class);
    }

    private IssueJoinTicketResponse join(byte[] ak, String node, Optional<byte[]> discoveryKey) {
        IssueJoinTicketRequest.Builder request = IssueJoinTicketRequest.newBuilder().setDiskUuid(UUID.randomUUID().toString())
                .setNodeName(node).setVerifyEndpoint("10.0.0.5:7443");
        discoveryKey.ifPresent(k -> request.setDiscoveryPublicKey(ByteString.copyFrom(k)));
        return TestCaller.as(service.channel(), ak).issueJoinTicket(request.build());
    }

    @Test
    @DisplayName("a join whose ticket carries a member certificate keeps the key it certifies at nodes/<name>/member-key (hex), beside the endpoint; a join without a discovery key keeps none")
    void joinKeepsTheMemberKey() throws Exception {
        byte[] key = MemberKey.generate(new SecureRandom()).publicKey();
        IssueJoinTicketResponse ticket = join(TestCaller.ak("keyed-worker"), "keyed-worker", Optional.of(key));
        MemberCertificate certificate = MemberCertificate.verify(ticket.getMemberCertificate().toByteArray(),
                ticket.getDiscoveryCaPublicKey().toByteArray(), Instant.now());
        assertEquals(HexFormat.of().formatHex(certificate.publicKey()), admin.get(V1 + "nodes/keyed-worker/member-key").orElseThrow());
        assertEquals(Optional.of("10.0.0.5:7443"), admin.get(V1 + "nodes/keyed-worker/endpoint"));

        join(TestCaller.ak("keyless-worker"), "keyless-worker", Optional.empty());
        assertEquals(Optional.empty(), admin.get(V1 + "nodes/keyless-worker/member-key"));
        assertEquals(Optional.of("10.0.0.5:7443"), admin.get(V1 + "nodes/keyless-worker/endpoint"));
    }

    @Test
    @DisplayName("after a revocation the service's publisher writes revocations/list: the discovery CA's list for this cluster, its version revocations/version, naming the revoked member's key")
    void revocationWritesTheList() throws Exception {
        byte[] ak = TestCaller.ak("revoked-member");
        byte[] key = MemberKey.generate(new SecureRandom()).publicKey();
        join(ak, "revoked-member", Optional.of(key));
        nodes.revoke("revoked-member", HexFormat.of().formatHex(ak), "OPERATOR", "operator");
        service.bean(RevocationPublisher.class).publish(Optional.empty()); // what OperatorEndpoint.revoke does next

        byte[] stored = Base64.getDecoder().decode(admin.get(V1 + "revocations/list").orElseThrow());
        RevocationList list = RevocationList.verify(stored, new DiscoveryCa(FakeKeyService.keyFor(KeyDerivation.DISCOVERY_CA)).publicKey(),
                service.cluster.clusterId());
        assertEquals(Long.parseLong(admin.get(V1 + "revocations/version").orElseThrow()), list.version());
        assertTrue(list.revokes(key), "the revoked member's key is listed");
    }
}
