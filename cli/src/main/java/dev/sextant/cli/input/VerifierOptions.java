package dev.sextant.cli.input;

import com.google.protobuf.ByteString;
import dev.sextant.attestation.policy.MeasurementSet;
import dev.sextant.attestation.policy.Measurements;
import dev.sextant.attestation.policy.MeasurementsException;
import dev.sextant.attestation.policy.MeasurementsFile;
import dev.sextant.attestation.verify.AkTrust;
import dev.sextant.attestation.verify.AttestationRejected;
import dev.sextant.attestation.verify.AttestationVerifier;
import dev.sextant.attestation.verify.AttestedState;
import dev.sextant.attestation.verify.DocumentVerifier;
import dev.sextant.attestation.verify.Reason;
import dev.sextant.attestation.verify.VerifierPolicy;
import dev.sextant.cli.failure.CliFailure;
import dev.sextant.proto.v1.SignedMeasurements;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.nio.file.Path;
import java.security.cert.CertificateException;
import java.util.Arrays;

/** What every verifying command needs: the expected measurements and how the AK is trusted. */
public final class VerifierOptions {
    private static final String MEASUREMENTS = "--measurements";
    private static final int NODE_LOCK_PCR = 15;
    private static final String MEASUREMENTS_KEY = "--measurements-key";
    private static final String PUBLIC_KEY_REMEDY = "pass the measurements-pub.pem that `sextant measurements keygen` wrote";
    private static final String EK_CA_REMEDY = "pass the EK CA certificate (ca-cert.pem of `sextant tpm ca --dir DIR`)";

    @Spec(Spec.Target.MIXEE)
    CommandSpec spec;

    @Option(names = MEASUREMENTS, required = true, paramLabel = "FILE", description = "the measurement set: the images whose PCR values are admitted, and those retired (JSON)")
    Path measurements;

    @Option(names = MEASUREMENTS_KEY, paramLabel = "PEM",
            description = "public key (PEM) that must have signed the measurements (<file>.sig)")
    Path measurementsKey;

    @ArgGroup(exclusive = true)
    AkTrustOption akTrust;

    static final class AkTrustOption {
        @Option(names = "--ek-ca", paramLabel = "PEM", description = "PEM bundle of EK CA certificates the EK and AK must chain to")
        Path ekCa;

        @Option(names = "--insecure-trust-any-ak",
                description = "INSECURE: accept any attestation key (development only; warns on every use)")
        boolean insecureTrustAnyAk;
    }

    /** Lets commands whose contract has no --ek-ca (sextant verify) find the cluster's EK CA. */
    static final String EK_CA_ENV = "SEXTANT_EK_CA";

    public DocumentVerifier verifier() {
        return new DocumentVerifier(new VerifierPolicy(loadMeasurements(), trust()));
    }

    /**
     * For a node that asks for its disk key at boot: its bootstrapper has not locked it yet, so PCR 15 must
     * be zero whatever the file says. A node that quotes a marked PCR 15 has been locked to some cluster
     * in this boot already, and a key sent to it would serve that cluster.
     */
    public DocumentVerifier verifierOfUnlockedNode() {
        return new DocumentVerifier(new VerifierPolicy(loadMeasurements().enforcing(NODE_LOCK_PCR, new byte[Measurements.SHA256_SIZE]),
                trust()));
    }

    /**
     * For a control plane's service, which runs on a bootstrapped node: its PCR 15 holds its cluster's mark,
     * which a set made for the nodes that join (PCR 15 zero until their lock) does not name; so PCR 15 must be
     * non-zero, every other PCR as the set says. A node that never bootstrapped serves no cluster.
     */
    public AttestationVerifier verifierOfBootstrappedNode() {
        return verifierOfBootstrappedNode(loadMeasurements(), trust());
    }

    /** {@link #verifierOfBootstrappedNode()} against {@code set}, for a command that holds the set itself. */
    public static AttestationVerifier verifierOfBootstrappedNode(MeasurementSet set, AkTrust trust) {
        DocumentVerifier documents = new DocumentVerifier(new VerifierPolicy(set.ignoring(NODE_LOCK_PCR), trust));
        return (document, purpose, nonce, userData) -> {
            AttestedState state = documents.verify(document, purpose, nonce, userData);
            byte[] pcr15 = state.pcrs().get(NODE_LOCK_PCR);
            if (pcr15 == null || Arrays.equals(pcr15, new byte[pcr15.length])) {
                throw new AttestationRejected(Reason.PCR_MISMATCH,
                        "PCR 15 is zero: the service does not run on a bootstrapped control plane");
            }
            return state;
        };
    }

    /**
     * The measurements as this command verifies them, for the cluster's join service to enforce:
     * with their signature ({@code <file>.sig}) and key when {@code --measurements-key} was given.
     */
    public SignedMeasurements signedMeasurements() {
        SignedMeasurements.Builder signed = SignedMeasurements.newBuilder()
                .setJson(ByteString.copyFrom(InputFiles.read(MEASUREMENTS, measurements, MeasurementsInput.REMEDY)));
        if (measurementsKey != null) {
            Path signature = MeasurementsInput.signatureFile(MEASUREMENTS, measurements);
            signed.setSignature(ByteString.copyFrom(InputFiles.read(MEASUREMENTS, signature, "sign the measurements again")))
                    .setPublicKeyPem(PemKeys.publicKey(MEASUREMENTS_KEY, measurementsKey, PUBLIC_KEY_REMEDY));
        }
        return signed.build();
    }

    /** The EK CA bundle (PEM) AKs must chain to; empty when any AK is trusted. */
    public String ekCaPem() {
        EkCaSource source = ekCaSource(akTrust == null ? null : akTrust.ekCa);
        return source == null ? "" : InputFiles.readString(source.name(), source.file(), EK_CA_REMEDY);
    }

    private record EkCaSource(String name, Path file) {
    }

    private static EkCaSource ekCaSource(Path ekCa) {
        if (ekCa != null) {
            return new EkCaSource("--ek-ca", ekCa);
        }
        String fromEnv = System.getenv(EK_CA_ENV);
        return fromEnv == null || fromEnv.isBlank() ? null : new EkCaSource("$" + EK_CA_ENV, Path.of(fromEnv));
    }

    /** The set of the file: a node whose PCRs match one of its retired images is refused naming that image. */
    private MeasurementSet loadMeasurements() {
        if (measurementsKey == null) {
            return MeasurementsInput.parse(MEASUREMENTS, measurements);
        }
        String publicKey = PemKeys.publicKey(MEASUREMENTS_KEY, measurementsKey, PUBLIC_KEY_REMEDY);
        MeasurementsInput.signatureFile(MEASUREMENTS, measurements);
        try {
            return MeasurementsFile.verifySet(measurements, publicKey);
        } catch (MeasurementsException e) {
            throw new CliFailure(MEASUREMENTS + " " + measurements + ": " + e.getMessage()
                    + ": check " + MEASUREMENTS_KEY + ", or sign the file again with `sextant measurements sign`", e);
        }
    }

    private AkTrust trust() {
        return akTrust == null ? trust(null, false, spec) : trust(akTrust.ekCa, akTrust.insecureTrustAnyAk, spec);
    }

    /**
     * The AK trust that {@code --ek-ca} (null: not given, so $SEXTANT_EK_CA) or {@code --insecure-trust-any-ak}
     * says, for a command that declares them itself; a usage error of {@code spec} when neither says any.
     */
    public static AkTrust trust(Path ekCa, boolean insecureTrustAnyAk, CommandSpec spec) {
        if (insecureTrustAnyAk) {
            return AkTrust.insecureTrustAnyAk();
        }
        EkCaSource source = ekCaSource(ekCa);
        if (source == null) {
            throw new ParameterException(spec.commandLine(), "say how the AK is trusted: --ek-ca PEM (or "
                    + EK_CA_ENV + "=PEM in the environment), or --insecure-trust-any-ak");
        }
        byte[] pem = InputFiles.read(source.name(), source.file(), EK_CA_REMEDY);
        try {
            return AkTrust.ekCaPem(pem);
        } catch (CertificateException e) {
            throw new CliFailure(source.name() + " " + source.file() + ": not a PEM bundle of certificates: " + EK_CA_REMEDY, e);
        }
    }
}
