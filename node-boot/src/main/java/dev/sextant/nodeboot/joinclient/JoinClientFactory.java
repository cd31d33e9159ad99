package dev.sextant.nodeboot.joinclient;

import dev.sextant.housekeeping.retry.Backoff;
import dev.sextant.atls.ServerVerification;
import dev.sextant.attestation.issue.Attester;
import dev.sextant.nodeboot.jointrust.JoinServiceTrust;
import dev.sextant.nodeboot.bringup.BringUp;
import dev.sextant.nodeboot.deploy.EtcdAdvertisedUrls;
import dev.sextant.nodeboot.deploy.NodeLocalSettings;
import dev.sextant.diskcrypt.StateDisk;
import dev.sextant.nodeboot.joinservices.CombinedDiscovery;
import dev.sextant.housekeeping.discovery.ControlPlaneDiscovery;
import dev.sextant.housekeeping.discovery.Endpoint;
import dev.sextant.nodeboot.joinservices.MetadataFileDiscovery;
import dev.sextant.nodeboot.joinservices.StaticDiscovery;
import dev.sextant.housekeeping.discovery.EndpointDiscovery;
import dev.sextant.nodeboot.initserver.NodeIdentity;
import dev.sextant.nodeboot.kubernetes.KubernetesDriver;
import dev.sextant.nodeboot.nodelock.NodeLock;
import dev.sextant.nodeboot.verify.VerifyEndpointReport;
import io.micronaut.context.annotation.Factory;
import jakarta.inject.Named;
import jakarta.inject.Singleton;

import javax.net.ssl.SSLException;
import java.util.List;

/** The join-service side of the node: where the services are, how they are called, the join path. */
@Factory
final class JoinClientFactory {
    /** The configured list (or metadata file), then the join services endpoint discovery knows. */
    @Singleton
    @Named("join-services")
    ControlPlaneDiscovery joinServices(JoinClientSettings settings, EndpointDiscovery discovery) {
        ControlPlaneDiscovery configured = settings.hasEndpointsFile()
                ? new MetadataFileDiscovery(settings.endpointsFile())
                : new StaticDiscovery(settings.endpoints().stream().filter(e -> !e.isBlank()).map(Endpoint::parse).toList());
        return new CombinedDiscovery(List.of(configured, discovery.joinServices()));
    }

    /** Mutual aTLS: the node verifies the join service on join and rejoin (JoinServiceTrust: its own image PCRs, PCR 15 set, AK under the EK CA). */
    @Singleton
    AtlsJoinTransport transport(JoinClientSettings settings, Attester attester, JoinServiceTrust trust) throws SSLException {
        return new AtlsJoinTransport(attester, ServerVerification.by(trust.verifier()), settings.rpcTimeout());
    }

    /** A control plane names its etcd member as {@code sextant.services.etcd-advertise-*} say it advertises itself. */
    @Singleton
    JoinClient joinClient(JoinClientSettings settings, NodeIdentity identity, @Named("join-services") ControlPlaneDiscovery services,
                          AtlsJoinTransport transport, NodeLock lock, BringUp bringUp, StateDisk disk, KubernetesDriver kubernetes,
                          NodeLocalSettings nodeLocal, VerifyEndpointReport verifyEndpoint) {
        JoinClient.Node node = settings.controlPlane()
                ? JoinClient.Node.controlPlane(identity.name(), kubernetes.installed(), disk::prepareFresh,
                        EtcdAdvertisedUrls.of(nodeLocal, identity.name(), nodeLocal.clusterName()))
                : JoinClient.Node.worker(identity.name(), kubernetes.installed(), disk::prepareFresh);
        return new JoinClient(node.withVerifyEndpoint(verifyEndpoint.endpoint()), services, transport, lock, bringUp, Backoff.standard(), duration -> Thread.sleep(duration.toMillis()));
    }
}
