package dev.sextant.nodeboot.jointrust;

import dev.sextant.atls.ServerVerification;
import dev.sextant.attestation.Variant;
import dev.sextant.attestation.policy.ExpectedValue;
import dev.sextant.attestation.policy.Measurements;
import dev.sextant.attestation.tpmstructures.TpmAlg;
import dev.sextant.attestation.verify.AkTrust;
import dev.sextant.attestation.verify.AttestationRejected;
import dev.sextant.attestation.verify.AttestationVerifier;
import dev.sextant.attestation.verify.AttestedState;
import dev.sextant.attestation.verify.DocumentVerifier;
import dev.sextant.attestation.verify.Reason;
import dev.sextant.attestation.verify.VerifierPolicy;
import dev.sextant.tpm.command.TpmClient;
import dev.sextant.tpm.command.TpmException;
import jakarta.inject.Singleton;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The verifier every join and rejoin connection uses for the join service (mutual aTLS): the
 * node hands its CSR to, and takes its disk key and membership secrets from, only a service that
 * proves all of the following in the handshake.
 * <ul>
 *   <li>PCR 4, 9, 11, 12 and 13 equal THIS NODE'S OWN values, read from its own TPM. The node
 *       booted the measured image (its disk key depends on it), so the service must run the same
 *       image. Measurements handed in by the host (SMBIOS credentials, not measured into any PCR)
 *       could be forged by whoever controls the host; the node's own PCRs cannot.</li>
 *   <li>On a first join, PCR 15 is non-zero: the service runs on a bootstrapped control plane, not on
 *       a node that is itself still waiting to join (the node knows no cluster yet). On a rejoin
 *       ({@link #rejoinVerifier}) the node knows its cluster from its TPM's record, so PCR 15 must be
 *       exactly what the node lock leaves for that cluster ID: SHA-256(0^32 || SHA-256(cluster ID)).
 *       A bootstrapped node of another cluster built from the same image is refused. Checked on the
 *       {@link AttestedState} after the document verifier.</li>
 *   <li>On a rejoin, PCR 4, 9 and 11 are NOT compared with the node's own: during an image rollout
 *       (docs/image-upgrades.md) a node on the new image rejoins through a control plane still on the
 *       old one, and the other way round. What a rejoin takes is one thing, the state disk's key, and
 *       the node holds every key against its TPM's remembered key check before it tries it
 *       ({@code DiskUnlocker}), so a service that is not the cluster's can keep the node locked, which
 *       the host can anyway, but cannot open another disk for it. Which images the cluster admits is the
 *       join service's business, through the set in force. PCR 12 and 13 (the UKI's add-ons and the
 *       command line given to it) must still equal the node's own.</li>
 *   <li>Its AK chains to the EK CA in the node's image ({@link TrustedEkCa}), never to one the
 *       host offers: a host with a CA of its own could otherwise certify a software TPM that
 *       replays the public PCR values above.</li>
 * </ul>
 * Two settings lower this, for development, each with a WARN on every connection:
 * {@code sextant.node.join-service.insecure-ek-ca-from-host=true} also trusts the host's EK CA, and
 * {@code sextant.node.join-service.insecure-skip-verification=true} accepts any AK and any
 * measurements (the quote must still be fresh, made for the aTLS server purpose and correctly
 * signed). An image without an EK CA and without either setting cannot verify a join service:
 * {@link #verifier()} refuses, saying to build the image with {@code --ek-ca}.
 */
@Singleton
public final class JoinServiceTrust {
    private static final Logger LOG = LoggerFactory.getLogger(JoinServiceTrust.class);
    /** Boot chain (4), kernel and initrd (9), UKI sections incl. the dm-verity root hash (11), the rest of the UKI (12, 13). */
    static final List<Integer> IMAGE_PCRS = List.of(4, 9, 11, 12, 13);
    /** What a rejoin still compares with the node's own: the PCRs every image leaves at their zero state. */
    static final List<Integer> REJOIN_PCRS = List.of(12, 13);
    static final int CLUSTER_PCR = 15;

    private final JoinServiceTrustSettings settings;
    private final TpmClient ownTpm;

    public JoinServiceTrust(JoinServiceTrustSettings settings, TpmClient ownTpm) {
        this.settings = settings;
        this.ownTpm = ownTpm;
    }

    /**
     * A verifier for the join service's aTLS server evidence. Reads the node's own PCRs now, so
     * call it when a join or rejoin starts.
     *
     * @throws IllegalStateException when no EK CA may be trusted, or the node's own TPM cannot be
     *                               read: the node must not join
     */
    public AttestationVerifier verifier() {
        return verifier(IMAGE_PCRS, JoinServiceTrust::bootstrapped);
    }

    /**
     * As {@link #verifier()}, for a rejoin of a node whose TPM remembers its cluster: the service's
     * PCR 15 must be the node lock's mark of that cluster, {@code SHA-256(0^32 || clusterIdDigest)}.
     *
     * @param clusterIdDigest SHA-256 of the cluster ID, as the TPM's record of the disk holds it
     */
    public AttestationVerifier rejoinVerifier(byte[] clusterIdDigest) {
        byte[] expected = markOf(clusterIdDigest);
        return verifier(REJOIN_PCRS, state -> ofCluster(state, expected));
    }

    /**
     * What a rejoining node demands of the join service in the handshake: {@link #rejoinVerifier} on its
     * attestation, and, when the TPM's record names the cluster's join service role key, a proof of that
     * key bound to this handshake ({@link JoinServiceRoleCheck}): a worker of the same cluster, whose
     * PCR 15 carries the same mark, is refused. A record written before images recorded the role key
     * (version 1) cannot demand it: the service is then checked by its cluster mark only, with a WARN on
     * every connection, until a rejoin teaches the record the key ({@link #rejoinVerificationLearning}).
     *
     * @param roleKeyDigest the record's digest of the role key, empty for a record of version 1
     */
    public ServerVerification rejoinVerification(byte[] clusterIdDigest, Optional<byte[]> roleKeyDigest) {
        AttestationVerifier attestation = rejoinVerifier(clusterIdDigest);
        if (roleKeyDigest.isPresent()) {
            return ServerVerification.by(attestation, new JoinServiceRoleCheck(roleKeyDigest.get()));
        }
        return ServerVerification.by(attestation, (proof, ownRandom, spkiHash) -> warnUnchecked());
    }

    /**
     * {@link #rejoinVerification} for a record of version 1 (no role key digest), also noting in
     * {@code witness} the role key the service proves for each handshake: what the record learns when
     * this call's disk key opens the disk. The service is still checked by its cluster mark only.
     */
    public ServerVerification rejoinVerificationLearning(byte[] clusterIdDigest, RoleKeyWitness witness) {
        AttestationVerifier attestation = rejoinVerifier(clusterIdDigest);
        return ServerVerification.by(attestation, (proof, ownRandom, spkiHash) -> {
            warnUnchecked();
            witness.check(proof, ownRandom, spkiHash);
        });
    }

    private static void warnUnchecked() {
        LOG.warn("The TPM's record of the state disk names no join service role key (written before images recorded"
                + " it): the join service's control-plane role is not checked, only its cluster mark; a worker of this"
                + " cluster passes. A rejoin whose service proves the role key records it");
    }

    /** What PCR 15 holds after the node lock's TPM2_PCR_Event over a cluster ID whose SHA-256 is {@code clusterIdDigest}. */
    public static byte[] markOf(byte[] clusterIdDigest) {
        if (clusterIdDigest.length != 32) {
            throw new IllegalArgumentException("a cluster ID digest is 32 bytes, got " + clusterIdDigest.length);
        }
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            sha.update(new byte[32]);
            return sha.digest(clusterIdDigest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }

    @FunctionalInterface
    private interface ClusterCheck {
        AttestedState check(AttestedState state) throws AttestationRejected;
    }

    private AttestationVerifier verifier(List<Integer> ownPcrs, ClusterCheck cluster) {
        if (settings.insecureSkipVerification()) {
            return insecure();
        }
        TrustedEkCa ekCa = TrustedEkCa.read(settings);
        DocumentVerifier documents = new DocumentVerifier(new VerifierPolicy(ownImage(ownPcrs), ekCa.akTrust()));
        AttestationVerifier verifier = (document, purpose, nonce, userData) ->
                cluster.check(documents.verify(document, purpose, nonce, userData));
        return ekCa.fromHost() ? warnEveryTime(verifier) : verifier;
    }

    private static AttestationVerifier warnEveryTime(AttestationVerifier verifier) {
        return (document, purpose, nonce, userData) -> {
            LOG.warn("INSECURE: the join service's AK may chain to the EK CA the host offered, which no PCR measures ({}=true)",
                    JoinServiceTrustSettings.INSECURE_EK_CA_FROM_HOST);
            return verifier.verify(document, purpose, nonce, userData);
        };
    }

    /** {@code pcrs} as this node's TPM reports them now, all enforced. */
    private Measurements ownImage(List<Integer> pcrs) {
        SortedMap<Integer, byte[]> own;
        try {
            own = ownTpm.pcr().readAll(TpmAlg.SHA256);
        } catch (TpmException e) {
            throw new IllegalStateException("cannot verify the join service: reading this node's own PCRs failed: "
                    + e.getMessage(), e);
        }
        SortedMap<Integer, ExpectedValue> expected = new TreeMap<>();
        for (int pcr : pcrs) {
            expected.put(pcr, new ExpectedValue(own.get(pcr), false));
        }
        return new Measurements(Variant.QEMU_VTPM, expected);
    }

    private static AttestedState bootstrapped(AttestedState state) throws AttestationRejected {
        byte[] pcr15 = state.pcrs().get(CLUSTER_PCR);
        if (pcr15 == null || Arrays.equals(pcr15, new byte[pcr15.length])) {
            throw new AttestationRejected(Reason.PCR_MISMATCH,
                    "the join service's PCR 15 is zero: it does not run on a bootstrapped control plane");
        }
        return state;
    }

    private static AttestedState ofCluster(AttestedState state, byte[] expected) throws AttestationRejected {
        byte[] pcr15 = state.pcrs().get(CLUSTER_PCR);
        if (pcr15 == null || !MessageDigest.isEqual(pcr15, expected)) {
            throw new AttestationRejected(Reason.PCR_MISMATCH, "the join service's PCR 15 is not the mark of this node's"
                    + " cluster (the one its TPM remembers): it runs on a node of another cluster, or on none");
        }
        return state;
    }

    private static AttestationVerifier insecure() {
        DocumentVerifier anything = new DocumentVerifier(new VerifierPolicy(
                new Measurements(Variant.QEMU_VTPM, new TreeMap<>()), AkTrust.insecureTrustAnyAk()));
        return (document, purpose, nonce, userData) -> {
            LOG.warn("INSECURE: the join service's AK and measurements are NOT verified ({}=true)",
                    JoinServiceTrustSettings.INSECURE);
            return anything.verify(document, purpose, nonce, userData);
        };
    }
}
