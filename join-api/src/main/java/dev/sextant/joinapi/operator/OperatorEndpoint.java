package dev.sextant.joinapi.operator;

import dev.sextant.grpcsupport.Refusal;
import dev.sextant.joinapi.binding.BindingKey;
import dev.sextant.joinapi.binding.BindingStore;
import dev.sextant.joinapi.input.InputChecks;
import dev.sextant.joinapi.nodestate.NodeStateStore;
import dev.sextant.joinapi.nodestate.NodeStatus;
import dev.sextant.joinapi.nodestate.Revocation;
import dev.sextant.joinapi.reattest.RevocationPublisher;
import dev.sextant.proto.v1.ClusterStatusRequest;
import dev.sextant.proto.v1.ClusterStatusResponse;
import dev.sextant.proto.v1.NodeAttestationStatus;
import dev.sextant.proto.v1.OperatorServiceGrpc;
import dev.sextant.proto.v1.RevokeRequest;
import dev.sextant.proto.v1.RevokeResponse;
import io.grpc.stub.StreamObserver;
import jakarta.inject.Singleton;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * gRPC OperatorService, on the join service's port beside JoinService: the operator's view of the nodes
 * and their revocation. Thin: every call's proof is checked first ({@link OperatorProofCheck}), then the
 * node state answers ({@link NodeStateStore}). The caller is not attested (the operator has no TPM):
 * the proof is its only credential, which is why this service is the one the attestation interceptor
 * lets through without a quote.
 */
@Singleton
public class OperatorEndpoint extends OperatorServiceGrpc.OperatorServiceImplBase {
    private static final Logger LOG = LoggerFactory.getLogger(OperatorEndpoint.class);
    static final String CLUSTER_STATUS = OperatorServiceGrpc.getClusterStatusMethod().getFullMethodName();
    static final String REVOKE = OperatorServiceGrpc.getRevokeMethod().getFullMethodName();

    private final OperatorProofCheck proofs;
    private final NodeStateStore nodes;
    private final BindingStore bindings;
    private final RevocationPublisher revocations;
    private final Clock clock;

    public OperatorEndpoint(OperatorProofCheck proofs, NodeStateStore nodes, BindingStore bindings, RevocationPublisher revocations,
                            Clock clock) {
        this.proofs = proofs;
        this.revocations = revocations;
        this.nodes = nodes;
        this.bindings = bindings;
        this.clock = clock;
    }

    @FunctionalInterface
    private interface Step<T> {
        T run() throws Refusal;
    }

    @Override
    public void clusterStatus(ClusterStatusRequest request, StreamObserver<ClusterStatusResponse> responses) {
        answer("cluster status", responses, () -> {
            proofs.check(CLUSTER_STATUS, request.toBuilder().clearProof().build().toByteArray(), request.getProof());
            Instant now = clock.instant();
            ClusterStatusResponse.Builder status = ClusterStatusResponse.newBuilder();
            for (NodeStatus node : nodes.all()) {
                status.addNodes(NodeAttestationStatus.newBuilder().setName(node.name()).setRole(node.role())
                        .setImageVersion(node.imageVersion().orElse(""))
                        .setSecondsSinceLastSuccess(node.lastSuccess().map(t -> Math.max(0, Duration.between(t, now).toSeconds())).orElse(-1L))
                        .setState(node.state().wire()).setReason(node.reason()));
            }
            return status.build();
        });
    }

    @Override
    public void revoke(RevokeRequest request, StreamObserver<RevokeResponse> responses) {
        answer("revoke", responses, () -> {
            proofs.check(REVOKE, request.toBuilder().clearProof().build().toByteArray(), request.getProof());
            String node = nodeName(request.getNode());
            String ak = bindings.lookup(BindingKey.node(node)).orElseThrow(() -> new Refusal(OperatorRefusal.NO_SUCH_NODE,
                    "no machine is bound to the node name " + node + ": `sextant cluster status` lists the nodes"));
            Optional<Revocation> earlier = nodes.revocation(ak);
            Revocation inForce = earlier.isPresent() ? earlier.get()
                    : nodes.revoke(node, ak, Revocation.OPERATOR, Revocation.BY_OPERATOR);
            if (earlier.isEmpty()) {
                LOG.warn("the operator revoked node {} (AK {})", node, ak);
                // At once, not at the holder's next round: the list reaches discovery from revocations/list. A list
                // that cannot be written now (the KMS, etcd) is logged and written by the holder's next round.
                revocations.publish(Optional.empty());
            }
            return RevokeResponse.newBuilder().setNode(node).setReason(inForce.reason()).setRevokedAt(inForce.at().toString())
                    .setAlreadyRevoked(earlier.isPresent()).build();
        });
    }

    private static String nodeName(String value) throws Refusal {
        try {
            return InputChecks.nodeName(value);
        } catch (Refusal r) {
            throw new Refusal(OperatorRefusal.INVALID_INPUT, "node: " + r.getMessage());
        }
    }

    private static <T> void answer(String what, StreamObserver<T> responses, Step<T> step) {
        try {
            responses.onNext(step.run());
            responses.onCompleted();
        } catch (Refusal r) {
            if (r.isServerSide()) {
                LOG.warn("operator's {} refused ({}): {}", what, r.reason().tag(), r.getMessage(), r.getCause());
            } else {
                LOG.info("operator's {} refused ({}): {}", what, r.reason().tag(), r.getMessage());
            }
            responses.onError(r.toStatus());
        }
    }
}
