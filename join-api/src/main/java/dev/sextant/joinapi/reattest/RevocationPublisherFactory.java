package dev.sextant.joinapi.reattest;

import dev.sextant.grpcsupport.Refusal;
import dev.sextant.joinapi.keyservice.KeyServiceClient;
import dev.sextant.joinapi.keyservice.ReAttestationKeys;
import dev.sextant.joinapi.nodestate.NodeStateStore;
import dev.sextant.joinapi.plan.ClusterInfo;
import dev.sextant.keys.KeyDerivation;
import io.micronaut.context.BeanProvider;
import io.micronaut.context.annotation.Factory;
import jakarta.inject.Singleton;
import java.util.Arrays;

/**
 * The join service's one {@link RevocationPublisher}, shared by the re-attestation holder and the operator's
 * {@code Revoke}: the discovery CA's seed and the cluster ID come from the KMS when a list is signed (not at
 * start, when the KMS may not answer yet), the revoked members' keys from the node state.
 */
@Factory
class RevocationPublisherFactory {
    @Singleton
    RevocationPublisher revocationPublisher(NodeStateStore store, BeanProvider<KeyServiceClient> kms, BeanProvider<ClusterInfo> cluster) {
        RevocationListPublisher.CaSeed caSeed = () -> {
            ReAttestationKeys keys = kms.get().reAttestationKeys();
            Arrays.fill(keys.measurementSecret(), (byte) 0);
            return keys.discoveryCaSeed();
        };
        RevocationListPublisher.ClusterId clusterId = new RevocationListPublisher.ClusterId() {
            private byte[] known; // the cluster ID never changes: asked of the KMS once

            @Override
            public synchronized byte[] get() throws Refusal {
                if (known == null) {
                    ReAttestationKeys keys = kms.get().reAttestationKeys();
                    known = KeyDerivation.clusterId(keys.measurementSecret(), cluster.get().measurementSalt());
                    Arrays.fill(keys.measurementSecret(), (byte) 0);
                    Arrays.fill(keys.discoveryCaSeed(), (byte) 0);
                }
                return known.clone();
            }
        };
        return new RevocationListPublisher(store, revoked -> store.memberKey(revoked.node()), caSeed, clusterId);
    }
}
