package dev.sextant.cli.operator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import dev.sextant.attestation.verify.AkTrust;
import dev.sextant.attestation.verify.DocumentVerifier;
import dev.sextant.attestation.verify.VerifierPolicy;
import dev.sextant.attestation.policy.Measurements;
import dev.sextant.cli.remote.NodeEndpoint;
import dev.sextant.keys.operator.OperatorCredential;
import dev.sextant.proto.v1.ClusterStatusRequest;
import dev.sextant.proto.v1.OperatorServiceGrpc;
import dev.sextant.proto.v1.RevokeRequest;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Attacks on the operator's service: whoever reaches the join service's port (a host, a compromised node,
 * a recording of an earlier session) without the master secret. Each row ends with nothing revoked.
 */
@DisplayName("Attacks on the operator's service: forged credential, replayed proof, missing proof")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class OperatorAttacksTest {
    private static final String REVOKE = OperatorServiceGrpc.getRevokeMethod().getFullMethodName();
    private static final String STATUS = OperatorServiceGrpc.getClusterStatusMethod().getFullMethodName();
    private RunningJoinService join;

    @BeforeAll
    void start() throws Exception {
        join = new RunningJoinService();
        join.bind("worker-a", "bb01", "worker");
    }

    @AfterAll
    void stop() throws Exception {
        if (join != null) {
            join.close();
        }
    }

    private OperatorConnection connection(byte[] masterSecret, byte[] masterSalt) throws Exception {
        Measurements expected = Measurements.parse(Files.readAllBytes(join.measurementsFile));
        DocumentVerifier verifier = new DocumentVerifier(new VerifierPolicy(expected,
                AkTrust.ekCa(List.of(join.tpm.ca().certificate()))));
        OperatorConnection c = new OperatorConnection(NodeEndpoint.parse(join.endpoint()), verifier,
                OperatorCredential.of(masterSecret, masterSalt));
        assertTrue(c.connect(Duration.ofSeconds(20)), "the join service passes the operator's verification");
        return c;
    }

    private OperatorConnection operatorConnection() throws Exception {
        return connection(join.cluster.masterSecret, join.cluster.masterSalt);
    }

    private static StatusRuntimeException unauthenticated(String message, Runnable call) {
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class, call::run);
        assertEquals(Status.Code.UNAUTHENTICATED, e.getStatus().getCode(), e.getStatus().toString());
        assertTrue(String.valueOf(e.getStatus().getDescription()).contains(message), e.getStatus().getDescription());
        return e;
    }

    private void notRevoked() {
        assertEquals(Optional.empty(), join.admin.get(RunningJoinService.V1 + "revoked/bb01"), "worker-a was revoked");
    }

    private static OperatorServiceGrpc.OperatorServiceBlockingStub stub(OperatorConnection c) {
        return OperatorServiceGrpc.newBlockingStub(c.channel()).withDeadlineAfter(20, TimeUnit.SECONDS);
    }

    @Test
    @DisplayName("a forged operator credential (a proof by a key derived from another master secret), through the CLI: UNAUTHENTICATED, exit 2, nothing revoked")
    void forgedCredential() throws Exception {
        byte[] other = new byte[32];
        new SecureRandom().nextBytes(other);
        Path forged = Files.writeString(join.cluster.dir.resolve("forged-mastersecret.json"),
                RunningJoinService.masterSecretJson(other, join.cluster.masterSalt));
        RunningJoinService.Run run = join.operator(forged, "revoke", "worker-a");
        assertEquals(2, run.exit(), run.out());
        assertTrue(run.err().contains("not the operator credential's"), run.err());
        RunningJoinService.Run status = join.operator(forged, "cluster", "status");
        assertEquals(2, status.exit(), status.out());
        assertEquals("", status.out(), "no node is listed to a forged credential");
        notRevoked();
    }

    @Test
    @DisplayName("the operator's proof replayed on another connection (a recording, or a relaying host): UNAUTHENTICATED, nothing revoked; on its own connection it passes")
    void replayedOnAnotherConnection() throws Exception {
        try (OperatorConnection recorded = operatorConnection(); OperatorConnection replay = operatorConnection()) {
            RevokeRequest unsigned = RevokeRequest.newBuilder().setNode("worker-a").build();
            RevokeRequest signed = unsigned.toBuilder().setProof(ByteString.copyFrom(recorded.prove(REVOKE, unsigned.toByteArray()))).build();

            unauthenticated("on this connection", () -> stub(replay).revoke(signed));
            notRevoked();

            ClusterStatusRequest status = ClusterStatusRequest.newBuilder()
                    .setProof(ByteString.copyFrom(recorded.prove(STATUS, new byte[0]))).build();
            unauthenticated("on this connection", () -> stub(replay).clusterStatus(status));
            assertFalse(stub(recorded).clusterStatus(status).getNodesList().isEmpty(), "the proof passes on its own connection");
        }
    }

    @Test
    @DisplayName("a proof made for one call used for another (cluster status's proof on a Revoke, a revoke of another node): UNAUTHENTICATED, nothing revoked")
    void proofForAnotherCall() throws Exception {
        try (OperatorConnection c = operatorConnection()) {
            byte[] statusProof = c.prove(STATUS, new byte[0]);
            unauthenticated("not the operator credential's", () -> stub(c).revoke(RevokeRequest.newBuilder().setNode("worker-a")
                    .setProof(ByteString.copyFrom(statusProof)).build()));
            RevokeRequest other = RevokeRequest.newBuilder().setNode("worker-z").build();
            byte[] otherProof = c.prove(REVOKE, other.toByteArray());
            unauthenticated("not the operator credential's", () -> stub(c).revoke(RevokeRequest.newBuilder().setNode("worker-a")
                    .setProof(ByteString.copyFrom(otherProof)).build()));
            notRevoked();
        }
    }

    @Test
    @DisplayName("a cluster status call without the master secret's credential (no proof at all): UNAUTHENTICATED, no node listed")
    void noProof() throws Exception {
        try (OperatorConnection c = operatorConnection()) {
            unauthenticated("carries no operator proof", () -> stub(c).clusterStatus(ClusterStatusRequest.getDefaultInstance()));
            unauthenticated("carries no operator proof", () -> stub(c).revoke(RevokeRequest.newBuilder().setNode("worker-a").build()));
            notRevoked();
        }
    }
}
