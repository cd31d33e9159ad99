package dev.sextant.joinapi.measurements;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sextant.attestation.ecdsa.BouncyCastleEcdsa;
import dev.sextant.attestation.policy.MeasurementsFile;
import dev.sextant.attestation.policy.MeasurementsKey;
import dev.sextant.attestation.verify.AkTrust;
import dev.sextant.etcd.client.EtcdClientConfig;
import dev.sextant.etcd.client.Versioned;
import dev.sextant.grpcsupport.Refusal;
import dev.sextant.joinapi.TestCluster;
import dev.sextant.joinapi.TestClusterStore;
import dev.sextant.joinapi.binding.EtcdBindingStore;
import dev.sextant.joinapi.clusterstore.EtcdConnection;
import java.nio.file.Files;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * A publish and a key rotation at two join services at once, against real etcd: the publish commits only
 * while the key pin is the one it judged the set by, so a set of a key no longer pinned raises no floor.
 */
@DisplayName("Publishing a set while another join service rotates the measurement signing key")
class SetPublishDuringRotationTest {
    private static final String PIN = "/sextant/v1/measurements/key";
    private static final String FLOOR = "/sextant/v1/measurements/floor";

    private TestCluster cluster;
    private TestClusterStore etcd;

    @BeforeEach
    void start() {
        cluster = new TestCluster();
        etcd = new TestClusterStore(1);
    }

    @AfterEach
    void stop() throws Exception {
        cluster.close();
        etcd.close();
    }

    @Test
    @DisplayName("a rotation (a set of the floor's version signed by the pinned key, naming NEW) admitted between a publish's "
            + "check and its commit of an old-key set (7): the publish is refused NOT_SIGNED_BY_PINNED_KEY, the floor stays, "
            + "nothing published; the floor and the pin never disagree")
    void publishRacingARotation() throws Exception {
        KeyPair pinned = cluster.signingKey;
        KeyPair next = KeyPairGenerator.getInstance("Ed25519").generateKeyPair();
        cluster.publishMeasurements(5, pinned, null, pinned.getPublic());
        ReloadingVerifier publishing = verifier();
        try (EtcdConnection rotatingConnection = connection("rotating-join"); EtcdConnection publishingConnection = connection("publishing-join")) {
            EtcdBindingStore bindings = new EtcdBindingStore(rotatingConnection);
            new MeasurementsFloor(bindings, publishing).admitSetInForce(); // pins the key, floor 5

            cluster.publishMeasurements(5, pinned, next.getPublic(), pinned.getPublic()); // moves the pin, not the floor
            MeasurementsFloor rotating = new MeasurementsFloor(bindings, verifier());
            cluster.publishMeasurements(7, pinned, null, pinned.getPublic());
            SignedSet oldKeySet = new SignedSet(Files.readAllBytes(cluster.measurements),
                    Files.readString(MeasurementsFile.signatureFile(cluster.measurements)));

            SetStore store = new SetStore(publishingConnection) {
                private boolean rotated;

                @Override
                public Optional<Versioned> floor() throws Refusal {
                    if (!rotated) { // read after the pin: the rotation lands between the check and the commit
                        rotated = true;
                        rotating.admitSetInForce();
                    }
                    return super.floor();
                }
            };
            SetPublisher publisher = new SetPublisher(store, new SetCheck(store, cluster.measurementsPublicKey), publishing);
            Refusal r = assertThrows(Refusal.class, () -> publisher.publish(oldKeySet), "a set of the old key published after the pin moved");
            assertEquals(PublishRefusal.NOT_SIGNED_BY_PINNED_KEY, r.reason());
        }
        assertTrue(etcd.admin().get(PIN).orElseThrow().startsWith(fingerprint(next) + " from "));
        assertEquals(Optional.of("5"), etcd.admin().get(FLOOR), "the floor was raised by a set whose key is not the pin");
        assertEquals(Optional.empty(), etcd.admin().get("/sextant/v1/measurements/set"));
    }

    private ReloadingVerifier verifier() throws Exception {
        return new ReloadingVerifier(cluster.measurements, ReloadingVerifier.PublicKeySource.file(cluster.measurementsPublicKey),
                AkTrust.insecureTrustAnyAk(), new BouncyCastleEcdsa(new SecureRandom()));
    }

    private EtcdConnection connection(String client) {
        return new EtcdConnection(new EtcdClientConfig(List.of(etcd.etcd().member("etcd-0").clientEndpoint()),
                etcd.etcd().clientTls(client), Duration.ofSeconds(2)));
    }

    private static String fingerprint(KeyPair key) throws Exception {
        return MeasurementsKey.of(PublishingCluster.pem(key.getPublic())).fingerprint();
    }
}
