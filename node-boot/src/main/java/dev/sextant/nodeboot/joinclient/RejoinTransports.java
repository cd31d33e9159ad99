package dev.sextant.nodeboot.joinclient;

import dev.sextant.atls.ServerVerification;
import dev.sextant.attestation.issue.Attester;
import dev.sextant.nodeboot.jointrust.JoinServiceTrust;
import jakarta.inject.Singleton;

import javax.net.ssl.SSLException;
import java.util.Optional;

/**
 * The transport a rebooted node asks for its disk key over. It knows its cluster from its TPM's
 * record of the disk, so it takes a key only from a join service whose PCR 15 is that cluster's
 * mark ({@link JoinServiceTrust#rejoinVerifier}) and that proves the cluster's join service role key
 * in the handshake: a bootstrapped node of another cluster built from the same image, and a worker of
 * the same cluster, are refused in the handshake. A record written before images recorded the role key
 * (version 1) checks the cluster mark only, and learns the role key a service proves in the handshake
 * ({@link LearningRejoinTransport}).
 */
@Singleton
public final class RejoinTransports {
    private final JoinClientSettings settings;
    private final Attester attester;
    private final JoinServiceTrust trust;

    public RejoinTransports(JoinClientSettings settings, Attester attester, JoinServiceTrust trust) {
        this.settings = settings;
        this.attester = attester;
        this.trust = trust;
    }

    /**
     * Asks only join services of the cluster whose ID hashes to {@code clusterIdDigest} that prove, in
     * the handshake, the cluster's join service role key whose digest is {@code roleKeyDigest}
     * ({@link JoinServiceTrust#rejoinVerification}); a record without one checks the cluster mark only.
     *
     * @throws IllegalStateException when no join service can be verified (no EK CA in the image)
     */
    public RejoinTransport ofCluster(byte[] clusterIdDigest, Optional<byte[]> roleKeyDigest) throws SSLException {
        if (roleKeyDigest.isEmpty()) {
            // A record of version 1: the weaker check, learning the role key a service proves on the way. Built
            // once now, so an image that cannot verify join services (no EK CA) says so at once, as for version 2.
            trust.rejoinVerifier(clusterIdDigest);
            return new LearningRejoinTransport(attester, witness -> trust.rejoinVerificationLearning(clusterIdDigest, witness),
                    settings.rpcTimeout());
        }
        return new AtlsJoinTransport(attester, trust.rejoinVerification(clusterIdDigest, roleKeyDigest),
                settings.rpcTimeout());
    }

    /**
     * A disk adopted without a TPM record (insecure-adopt-unrecorded): its cluster is unknown until
     * it opens, so any bootstrapped join service of the image is asked, as before records.
     */
    public RejoinTransport ofUnknownCluster() throws SSLException {
        return new AtlsJoinTransport(attester, ServerVerification.by(trust.verifier()), settings.rpcTimeout());
    }
}
