package dev.sextant.joinapi.ticket;

import com.google.protobuf.ByteString;
import com.google.protobuf.UnsafeByteOperations;
import dev.sextant.joinapi.Hex;
import dev.sextant.keys.KeyDerivation;
import dev.sextant.joinapi.Refusal;
import dev.sextant.joinapi.binding.BindingStore;
import dev.sextant.joinapi.controlplane.ControlPlaneMaterial;
import dev.sextant.joinapi.kms.KeyServiceClient;
import dev.sextant.joinapi.kubeletca.ClusterCa;
import dev.sextant.joinapi.kubeletca.CsrCheck;
import dev.sextant.joinapi.kubeletca.KubeletSigner;
import dev.sextant.joinapi.token.BootstrapToken;
import dev.sextant.joinapi.token.BootstrapTokens;
import dev.sextant.joinapi.token.CaHashes;
import dev.sextant.proto.v1.ControlPlaneFile;
import dev.sextant.proto.v1.IssueJoinTicketRequest;
import dev.sextant.proto.v1.IssueJoinTicketResponse;
import dev.sextant.proto.v1.IssueRejoinTicketRequest;
import dev.sextant.proto.v1.IssueRejoinTicketResponse;
import jakarta.inject.Singleton;
import java.util.List;
import java.util.Optional;
import org.bouncycastle.pkcs.PKCS10CertificationRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Issues join and rejoin tickets to an attested machine (its AK name). The order is what keeps
 * failures clean: all input checks first; then the KMS keys (nothing written yet, so a KMS outage
 * leaves nothing behind); then the bindings (the only state that outlives a failure, and only ever
 * in favour of this AK); then local signing; the bootstrap token last, so no token exists for a
 * ticket that was not returned.
 */
@Singleton
public class TicketIssuer {
    private static final Logger LOG = LoggerFactory.getLogger(TicketIssuer.class);

    private final KeyServiceClient kms;
    private final BindingStore bindings;
    private final KubeletSigner signer;
    private final BootstrapTokens tokens;
    private final ControlPlaneMaterial controlPlane;
    private final ClusterCa ca;
    private final ClusterInfo cluster;

    public TicketIssuer(KeyServiceClient kms, BindingStore bindings, KubeletSigner signer, BootstrapTokens tokens,
                        ControlPlaneMaterial controlPlane, ClusterCa ca, ClusterInfo cluster) {
        this.kms = kms;
        this.bindings = bindings;
        this.signer = signer;
        this.tokens = tokens;
        this.controlPlane = controlPlane;
        this.ca = ca;
        this.cluster = cluster;
    }

    public IssueJoinTicketResponse join(IssueJoinTicketRequest request, byte[] akName) throws Refusal {
        String uuid = InputChecks.diskUuid(request.getDiskUuid());
        String nodeName = InputChecks.nodeName(request.getNodeName());
        PKCS10CertificationRequest csr = CsrCheck.check(request.getKubeletCsr().toByteArray(), nodeName);

        byte[] measurementSecret = kms.dataKey(KeyDerivation.MEASUREMENT_SECRET);
        byte[] diskKey = kms.dataKey(uuid);
        byte[] discoveryKey = kms.dataKey(KeyDerivation.DISCOVERY_KEY);
        claim(uuid, nodeName, akName);
        String kubeletCert = signer.sign(csr);
        List<ControlPlaneFile> files = request.getControlPlane() ? controlPlane.files() : List.of();
        Optional<BootstrapToken> token = tokens.create();
        LOG.info("issued join ticket: node={} disk={} token={} controlPlane={}",
                nodeName, uuid, token.map(BootstrapToken::id).orElse("none (no Kubernetes)"), request.getControlPlane());

        IssueJoinTicketResponse.Builder ticket = IssueJoinTicketResponse.newBuilder()
                .setStateDiskKey(UnsafeByteOperations.unsafeWrap(diskKey))
                .setMeasurementSalt(ByteString.copyFrom(cluster.measurementSalt()))
                .setMeasurementSecret(UnsafeByteOperations.unsafeWrap(measurementSecret))
                .setDiscoveryKey(UnsafeByteOperations.unsafeWrap(discoveryKey))
                .setKubeletCertificate(ByteString.copyFromUtf8(kubeletCert))
                .setApiServerEndpoint(cluster.apiServerEndpoint())
                .setCaCertHash(CaHashes.caCertHash(ca.serverCa()))
                .addAllControlPlaneFiles(files)
                .setKubernetesVersion(cluster.kubernetesVersion());
        token.ifPresent(t -> ticket.setBootstrapToken(t.value()).setK3SToken(CaHashes.k3sToken(ca.serverCaFile(), t)));
        return ticket.build();
    }

    public IssueRejoinTicketResponse rejoin(IssueRejoinTicketRequest request, byte[] akName) throws Refusal {
        String uuid = InputChecks.diskUuid(request.getDiskUuid());
        // A rebooted node presents the same AK (re-derived from the same primary seed), so only the
        // machine that joined with this disk gets its key back.
        boolean owned = bindings.owner(BindingStore.Kind.DISK, uuid)
                .map(owner -> Hex.same(owner, akName)).orElse(false);
        if (!owned) {
            throw new Refusal(Refusal.Reason.DISK_NOT_BOUND, "disk " + uuid + " was not joined by this machine");
        }
        byte[] measurementSecret = kms.dataKey(KeyDerivation.MEASUREMENT_SECRET);
        byte[] diskKey = kms.dataKey(uuid);
        LOG.info("issued rejoin ticket: disk={}", uuid);
        return IssueRejoinTicketResponse.newBuilder()
                .setStateDiskKey(UnsafeByteOperations.unsafeWrap(diskKey))
                .setMeasurementSecret(UnsafeByteOperations.unsafeWrap(measurementSecret))
                .build();
    }

    /**
     * Disk before node name: the disk key is the secret worth protecting. PERMISSION_DENIED for a
     * disk of another machine (the caller is not entitled to that key, whatever it retries);
     * ALREADY_EXISTS for a taken node name (the name is a resource that exists; a correctly working
     * node would pick another name, and the code tells an operator which case it is).
     */
    private void claim(String uuid, String nodeName, byte[] akName) throws Refusal {
        if (!bindings.claim(BindingStore.Kind.DISK, uuid, akName)) {
            throw new Refusal(Refusal.Reason.DISK_BOUND_ELSEWHERE, "disk " + uuid + " belongs to another machine");
        }
        if (!bindings.claim(BindingStore.Kind.NODE, nodeName, akName)) {
            throw new Refusal(Refusal.Reason.NODE_NAME_TAKEN, "node name " + nodeName + " is held by another machine");
        }
    }
}
