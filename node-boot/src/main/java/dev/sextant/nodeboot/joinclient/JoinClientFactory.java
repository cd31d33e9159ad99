package dev.sextant.nodeboot.joinclient;

import dev.sextant.attestation.issue.Attester;
import dev.sextant.attestation.policy.Measurements;
import dev.sextant.attestation.verify.AkTrust;
import dev.sextant.attestation.verify.DocumentVerifier;
import dev.sextant.attestation.verify.VerifierPolicy;
import dev.sextant.nodeboot.diskcrypt.StateDisk;
import dev.sextant.nodeboot.diskcrypt.StateDiskSettings;
import dev.sextant.nodeboot.discovery.ControlPlaneDiscovery;
import dev.sextant.nodeboot.discovery.Endpoint;
import dev.sextant.nodeboot.discovery.MetadataFileDiscovery;
import dev.sextant.nodeboot.discovery.StaticDiscovery;
import dev.sextant.nodeboot.failure.FailureHandler;
import dev.sextant.nodeboot.initserver.NodeIdentity;
import dev.sextant.nodeboot.nodelock.NodeLock;
import io.micronaut.context.annotation.Factory;
import jakarta.inject.Singleton;

import java.io.InputStream;
import java.nio.file.Files;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.List;

/** Builds the join path from configuration; only used when {@link JoinClientSettings#enabled()}. */
@Factory
final class JoinClientFactory {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(JoinClientFactory.class);

    @Singleton
    JoinClient joinClient(JoinClientSettings settings, NodeIdentity identity, Attester attester, NodeLock lock,
                          TicketApplier applier, FailureHandler failure, StateDisk disk,
                          StateDiskSettings diskSettings) throws Exception {
        ControlPlaneDiscovery discovery = settings.hasEndpointsFile()
                ? new MetadataFileDiscovery(settings.endpointsFile())
                : new StaticDiscovery(settings.endpoints().stream().filter(e -> !e.isBlank()).map(Endpoint::parse).toList());
        DocumentVerifier serviceVerifier = null;
        if (settings.serviceMeasurements() != null && settings.serviceEkCa() != null) {
            serviceVerifier = new DocumentVerifier(new VerifierPolicy(
                    Measurements.parse(Files.readAllBytes(settings.serviceMeasurements())), ekCa(settings)));
        } else {
            // The ticket carries the disk key; say loudly that its sender is taken on trust.
            LOG.warn("The join service's attestation is NOT verified: set sextant.join.service-measurements and"
                    + " sextant.join.service-ek-ca for mutual aTLS");
        }
        // The join service derives the disk key from the UUID, so a blank disk is formatted before the first request.
        JoinClient.DiskUuid uuid = () -> {
            if (!Files.exists(diskSettings.device())) {
                return "";
            }
            disk.bootPassphrase();
            return disk.uuid();
        };
        return new JoinClient(new JoinClient.Node(identity.name(), settings.controlPlane(), uuid), discovery,
                new AtlsJoinTransport(attester, serviceVerifier, settings.rpcTimeout()), lock, applier, failure,
                Backoff.standard(), duration -> Thread.sleep(duration.toMillis()));
    }

    private static AkTrust ekCa(JoinClientSettings settings) throws Exception {
        try (InputStream in = Files.newInputStream(settings.serviceEkCa())) {
            List<X509Certificate> anchors = CertificateFactory.getInstance("X.509").generateCertificates(in)
                    .stream().map(X509Certificate.class::cast).toList();
            return AkTrust.ekCa(anchors);
        }
    }
}
