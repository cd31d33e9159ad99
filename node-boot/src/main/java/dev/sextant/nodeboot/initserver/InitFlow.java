package dev.sextant.nodeboot.initserver;

import dev.sextant.keys.role.JoinServiceRoleKey;
import com.google.protobuf.ByteString;
import dev.sextant.nodeboot.bringup.BringUp;
import dev.sextant.nodeboot.bringup.BringUpOutcome;
import dev.sextant.nodeboot.bringup.Membership;
import dev.sextant.nodeboot.deploy.ServicesInput;
import dev.sextant.diskcrypt.DiskCryptException;
import dev.sextant.diskcrypt.StateDisk;
import dev.sextant.nodeboot.kubernetes.ClusterSettings;
import dev.sextant.proto.v1.InitRequest;
import dev.sextant.proto.v1.InitSuccess;
import dev.sextant.serviceconfig.JoinServiceConfig;
import jakarta.inject.Singleton;

import java.util.function.BiConsumer;

/**
 * The init path for a request whose secret and fields were already checked: derive the
 * membership from the master secret (this node is the cluster's first control plane) and hand it
 * to the {@link BringUp} pipeline, which owns everything after.
 */
@Singleton
public final class InitFlow {
    private final BringUp bringUp;
    private final StateDisk disk;
    private final NodeIdentity node;

    /** What init achieved: the answer for the operator and the bring-up it came from. */
    public record Outcome(InitSuccess success, BringUpOutcome.Bootstrapped bootstrapped) {
    }

    public InitFlow(BringUp bringUp, StateDisk disk, NodeIdentity node) {
        this.bringUp = bringUp;
        this.disk = disk;
        this.node = node;
    }

    /** {@code progress} receives (step, detail) pairs as the node gets through them. */
    public Outcome run(InitRequest request, BiConsumer<String, String> progress)
            throws InitFailedException, InterruptedException {
        Master master = Master.of(request);
        ClusterKeys keys = new ClusterKeys(master.secret(), master.salt());
        byte[] measurementSalt = request.getMeasurementSalt().toByteArray();
        byte[] clusterId = ClusterKeys.clusterId(keys.measurementSecret(), measurementSalt);
        String apiHost = request.getApiServerCertSansCount() > 0 ? request.getApiServerCertSans(0) : node.name();
        int controlPlanes = request.getControlPlanes() == 0 ? JoinServiceConfig.defaults().controlPlanes() : request.getControlPlanes();
        ServicesInput services = new ServicesInput(master.secret(), master.salt(), measurementSalt,
                request.getJoinMeasurements(), request.getEkCaPem(), apiHost + ":6443", new byte[0], null, node.name(), controlPlanes);
        // The init node holds the master secret, so it derives its disk key exactly as the KMS would.
        String uuid;
        try {
            uuid = disk.prepareFresh();
        } catch (DiskCryptException e) {
            throw new InitFailedException("preparing the state disk: " + e.getMessage(), e);
        }
        Membership membership = Membership.init(node.name(), clusterId, keys.diskKey(uuid), keys.discoveryKey(),
                clusterSettings(request), services, keys::diskKey, keys.certifySelf(node.name(), clusterId))
                // The init node holds the master secret: its TPM records the role key its rejoins will demand.
                .knowingJoinServiceRole(JoinServiceRoleKey.of(master.secret(), master.salt()).publicKey());
        BringUpOutcome outcome = bringUp.run(membership, progress);
        if (outcome instanceof BringUpOutcome.LockLost lost) {
            throw new InitFailedException(lost.message());
        }
        if (outcome instanceof BringUpOutcome.Failed failed) {
            throw new InitFailedException(failed.reason());
        }
        BringUpOutcome.Bootstrapped done = (BringUpOutcome.Bootstrapped) outcome;
        return new Outcome(InitSuccess.newBuilder().setKubeconfig(ByteString.copyFrom(done.kubeconfig()))
                .setClusterId(ByteString.copyFrom(clusterId)).setStateDiskUuid(uuid).build(), done);
    }

    private record Master(byte[] secret, byte[] salt) {
        static Master of(InitRequest request) {
            if (!request.getKmsUri().isEmpty()) {
                KmsUri uri = KmsUri.parse(request.getKmsUri()).orElseThrow();
                return new Master(uri.masterSecret(), uri.masterSalt());
            }
            return new Master(request.getMasterSecret().toByteArray(), request.getMasterSalt().toByteArray());
        }
    }

    private ClusterSettings clusterSettings(InitRequest r) {
        String name = r.getClusterName().isEmpty() ? "sextant" : r.getClusterName();
        return new ClusterSettings(node.name(), name, r.getKubernetes().getVersion(),
                r.getKubernetes().getServiceCidr(), r.getKubernetes().getPodCidr(), r.getApiServerCertSansList());
    }
}
