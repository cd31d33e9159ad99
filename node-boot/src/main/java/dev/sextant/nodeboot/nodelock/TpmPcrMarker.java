package dev.sextant.nodeboot.nodelock;

import dev.sextant.grpcsupport.training.TrainingRun;
import io.micronaut.context.annotation.Requires;
import dev.sextant.attestation.tpmstructures.TpmAlg;
import dev.sextant.tpm.command.TpmClient;
import dev.sextant.tpm.command.TpmException;
import jakarta.inject.Singleton;

import java.io.IOException;
import java.util.Arrays;

/**
 * TPM2_PCR_Event(15, clusterID), as Constellation does: the TPM hashes the ID itself, so in the
 * SHA-256 bank PCR 15 = SHA-256(0^32 || SHA-256(clusterID)), which a verifier can recompute.
 */
@Singleton
@Requires(notEnv = TrainingRun.ENVIRONMENT)
public final class TpmPcrMarker implements PcrMarker {
    static final int CLUSTER_ID_PCR = 15;

    private final TpmClient tpm;

    public TpmPcrMarker(TpmClient tpm) {
        this.tpm = tpm;
    }

    @Override
    public void mark(byte[] clusterId) throws IOException {
        try {
            tpm.pcr().event(CLUSTER_ID_PCR, clusterId);
        } catch (TpmException e) {
            throw new IOException("extending PCR " + CLUSTER_ID_PCR + " with the cluster ID: " + e.getMessage(), e);
        }
    }

    @Override
    public boolean alreadyMarked() throws IOException {
        try {
            byte[] pcr15 = tpm.pcr().readAll(TpmAlg.SHA256).get(CLUSTER_ID_PCR);
            if (pcr15 == null) {
                throw new IOException("the TPM returned no SHA-256 PCR " + CLUSTER_ID_PCR);
            }
            return !Arrays.equals(pcr15, new byte[pcr15.length]);
        } catch (TpmException e) {
            throw new IOException("reading PCR " + CLUSTER_ID_PCR + ": " + e.getMessage(), e);
        }
    }
}
