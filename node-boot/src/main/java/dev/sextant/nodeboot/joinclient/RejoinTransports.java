package dev.sextant.nodeboot.joinclient;

import dev.sextant.atls.ServerVerification;
import dev.sextant.attestation.issue.Attester;
import dev.sextant.nodeboot.jointrust.JoinServiceTrust;
import jakarta.inject.Singleton;

import javax.net.ssl.SSLException;

/**
 * The transport a rebooted node asks for its disk key over. It knows its cluster from its TPM's
 * record of the disk, so it takes a key only from a join service whose PCR 15 is that cluster's
 * mark ({@link JoinServiceTrust#rejoinVerifier}): a bootstrapped node of another cluster built
 * from the same image is refused in the handshake.
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
     * Asks only join services of the cluster whose ID hashes to {@code clusterIdDigest}.
     *
     * @throws IllegalStateException when no join service can be verified (no EK CA in the image)
     */
    public RejoinTransport ofCluster(byte[] clusterIdDigest) throws SSLException {
        return new AtlsJoinTransport(attester, ServerVerification.by(trust.rejoinVerifier(clusterIdDigest)),
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
