package dev.sextant.localcluster.mini.operator;

import dev.sextant.attestation.policy.MeasurementSet;
import dev.sextant.attestation.policy.MeasurementsFile;
import dev.sextant.attestation.verify.AkTrust;
import dev.sextant.attestation.verify.DocumentVerifier;
import dev.sextant.attestation.verify.VerifierPolicy;
import dev.sextant.localcluster.mini.files.MiniLayout;
import dev.sextant.localcluster.mini.report.MiniFailure;
import dev.sextant.localcluster.verify.AtlsProbe;
import dev.sextant.tpmmanufacturer.swtpm.LocalCa;
import java.io.IOException;
import java.nio.file.Files;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Verifies a mini node as {@code sextant verify} does: an attested TLS handshake with the node's
 * bootstrapper port, its quote checked against {@code measurements} with the AK chained to the
 * mini EK CA.
 */
public final class NodeAttestation {
    private final MeasurementSet measurements;
    private final AtlsProbe probe;
    private final SecureRandom random = new SecureRandom();

    public NodeAttestation(MeasurementSet measurements, X509Certificate ekCa) {
        this.measurements = measurements;
        this.probe = new AtlsProbe(new DocumentVerifier(new VerifierPolicy(measurements, AkTrust.ekCa(List.of(ekCa)))));
    }

    /** What a bootstrapped node of the cluster in {@code layout} must show: its signed measurements with PCR 15 marked. */
    public static NodeAttestation ofCluster(MiniLayout layout) throws Exception {
        if (!Files.isRegularFile(layout.clusterMeasurements())) {
            throw new MiniFailure("no " + layout.clusterMeasurements() + ": the cluster in " + layout.dir()
                    + " was never initialized; 'sextant mini up' starts a new one");
        }
        MeasurementSet cluster = MeasurementsFile.verifySet(layout.clusterMeasurements(),
                Files.readString(layout.measurementsPublicKey()));
        return new NodeAttestation(cluster, LocalCa.load(layout.caDir()).certificate());
    }

    /** One handshake with 127.0.0.1:{@code hostPort}; empty while the node's server is not up. */
    public Optional<AtlsProbe.Outcome> once(int hostPort) throws IOException {
        byte[] nonce = new byte[32];
        random.nextBytes(nonce);
        return probe.once(hostPort, nonce);
    }

    /** "PCR 4 9 11 12 13 15": the PCRs the policy checked, all equal to their expected values. */
    public String verifiedPcrs() {
        return "PCR " + measurements.images().get(0).measurements().measurements().keySet().stream().map(String::valueOf)
                .collect(Collectors.joining(" "));
    }

    /** A verification outcome as one summary cell. */
    public String describe(Optional<AtlsProbe.Outcome> outcome) {
        if (outcome.isEmpty()) {
            return "no answer on the aTLS port";
        }
        if (outcome.get().accepted().isPresent()) {
            return verifiedPcrs();
        }
        return "REJECTED: " + outcome.get().rejected().map(r -> r.reason() + ": " + r.getMessage()).orElse("?");
    }
}
