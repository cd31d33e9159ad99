package dev.sextant.joinapi.reattest;

import dev.sextant.attestation.ecdsa.Ecdsa;
import dev.sextant.attestation.verify.AkTrust;
import dev.sextant.joinapi.clusterstore.EtcdConnection;
import dev.sextant.joinapi.keyservice.KeyServiceClient;
import dev.sextant.joinapi.keyservice.ReAttestationKeys;
import dev.sextant.joinapi.measurements.ReloadingVerifier;
import dev.sextant.joinapi.nodestate.NodeStateStore;
import dev.sextant.joinapi.plan.ClusterInfo;
import dev.sextant.keys.KeyDerivation;
import dev.sextant.keys.member.DiscoveryCa;
import dev.sextant.serviceconfig.JoinServiceConfig;
import io.micronaut.context.BeanProvider;
import io.micronaut.context.annotation.Context;
import io.micronaut.context.annotation.Requires;
import jakarta.annotation.PreDestroy;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts the re-attestation duty with the join service: every join service is a candidate (the cluster
 * store is etcd, always configured); one holds it at a time. Nothing is asked of etcd or the KMS here:
 * the duty's thread competes once etcd answers, and the first round it holds fetches the cluster ID.
 */
@Context
@Requires(property = ReAttestationSettings.PREFIX + ".enabled", notEquals = "false")
public class ReAttestationStartup {
    private static final Logger LOG = LoggerFactory.getLogger(ReAttestationStartup.class);
    private final ReAttestationDuty duty;

    /** @param revokedNodes where Kubernetes runs, the cordon and taint of revoked Nodes (revokednode.RevokedNodeTaint); none node-local */
    public ReAttestationStartup(ReAttestationSettings settings, Optional<RevokedNodeFollowUp> revokedNodes,
                                JoinServiceConfig config, EtcdConnection etcd,
                                NodeStateStore store, BeanProvider<KeyServiceClient> kms, BeanProvider<ClusterInfo> cluster,
                                BeanProvider<ReloadingVerifier> verifier, RevocationPublisher revocations, Ecdsa ecdsa, Clock clock) {
        String holderName = settings.holder().orElseGet(ReAttestationStartup::hostName);
        // Built at the first round this service holds, not at start: the set in force, the EK CA and the KMS
        // may all be missing while the service starts (a training run, a control plane whose files come later).
        ReAttestationDuty.Rounds rounds = () -> {
            AkTrust trust = akTrust(config);
            // Read again at every round: a newly published (or retiring) set applies from the next one.
            ReloadingVerifier inForce = verifier.get();
            ReAttestationKeys keys = kms.get().reAttestationKeys();
            byte[] clusterId = KeyDerivation.clusterId(keys.measurementSecret(), cluster.get().measurementSalt());
            // The CA renews every attested member's certificate each round: kept for the duty's life, as the
            // service keeps its KMS connection; the seed itself is zeroed once the key is made.
            DiscoveryCa ca = new DiscoveryCa(keys.discoveryCaSeed());
            Arrays.fill(keys.measurementSecret(), (byte) 0);
            Arrays.fill(keys.discoveryCaSeed(), (byte) 0);
            MemberCertificateRenewer renewer = new MemberCertificateRenewer(ca, clusterId, config.memberCertificateValidity(), clock);
            return new ReAttestationRound(new NodeCall(new ClusterEvidence(inForce::measurements, trust, ecdsa, clusterId), ecdsa,
                    settings.callDeadline(), Optional.of(renewer))::ask, settings.parallel());
        };
        this.duty = new ReAttestationDuty(etcd::client, store, rounds, revocations, settings, holderName,
                clock, revokedNodes.orElse(RevokedNodeFollowUp.none())).start();
        LOG.info("re-attestation: {} is a candidate for the duty (every {}, lease {}, {} calls in flight, revoked after {} missed rounds)",
                holderName, settings.period(), settings.lease(), settings.parallel(), settings.missedPeriods());
    }

    public ReAttestationDuty duty() {
        return duty;
    }

    @PreDestroy
    void stop() {
        duty.close(); // resigns, so another join service takes the duty at once
    }

    /** The EK CA a join's AK must chain to, read as the join's verifier reads it (VerifierFactory). */
    private static AkTrust akTrust(JoinServiceConfig config) {
        if (config.ekCaFile().isEmpty()) {
            return AkTrust.insecureTrustAnyAk(); // the config allows this only with insecure-trust-any-ak
        }
        try {
            byte[] pem = Files.readAllBytes(config.ekCaFile().get());
            List<X509Certificate> anchors = CertificateFactory.getInstance("X.509")
                    .generateCertificates(new ByteArrayInputStream(pem)).stream().map(c -> (X509Certificate) c).toList();
            return AkTrust.ekCa(anchors);
        } catch (IOException | CertificateException e) {
            throw new IllegalStateException("cannot read the EK CA bundle " + config.ekCaFile().get() + ": " + e.getMessage(), e);
        }
    }

    private static String hostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return "join-service";
        }
    }
}
