package dev.sextant.cli;

import dev.sextant.attestation.policy.Measurements;
import dev.sextant.attestation.policy.MeasurementsException;
import dev.sextant.attestation.policy.MeasurementsFile;
import dev.sextant.attestation.verify.AkTrust;
import dev.sextant.attestation.verify.DocumentVerifier;
import dev.sextant.attestation.verify.VerifierPolicy;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.CertificateException;
import com.google.protobuf.ByteString;
import dev.sextant.proto.v1.SignedMeasurements;

/** What every verifying command needs: the expected measurements and how the AK is trusted. */
public final class VerifierOptions {
    @Spec(Spec.Target.MIXEE)
    CommandSpec spec;

    @Option(names = "--measurements", required = true, description = "expected PCR values (JSON)")
    Path measurements;

    @Option(names = "--measurements-key",
            description = "public key (PEM) that must have signed the measurements (<file>.sig)")
    Path measurementsKey;

    @ArgGroup(exclusive = true)
    AkTrustOption akTrust;

    static final class AkTrustOption {
        @Option(names = "--ek-ca", description = "PEM bundle of EK CA certificates the EK and AK must chain to")
        Path ekCa;

        @Option(names = "--insecure-trust-any-ak",
                description = "INSECURE: accept any attestation key (development only; warns on every use)")
        boolean insecureTrustAnyAk;
    }

    /** Lets commands whose contract has no --ek-ca (sextant verify) find the cluster's EK CA. */
    static final String EK_CA_ENV = "SEXTANT_EK_CA";

    private static Path defaultEkCa() {
        String fromEnv = System.getenv(EK_CA_ENV);
        return fromEnv == null || fromEnv.isBlank() ? null : Path.of(fromEnv);
    }

    public DocumentVerifier verifier() throws IOException, MeasurementsException, CertificateException {
        return new DocumentVerifier(new VerifierPolicy(loadMeasurements(), trust()));
    }

    /**
     * The measurements as this command verifies them, for the cluster's join service to enforce:
     * with their signature ({@code <file>.sig}) and key when {@code --measurements-key} was given.
     */
    public SignedMeasurements signedMeasurements() throws IOException {
        SignedMeasurements.Builder signed = SignedMeasurements.newBuilder()
                .setJson(ByteString.copyFrom(Files.readAllBytes(measurements)));
        if (measurementsKey != null) {
            signed.setSignature(ByteString.copyFrom(Files.readAllBytes(MeasurementsFile.signatureFile(measurements))))
                    .setPublicKeyPem(Files.readString(measurementsKey));
        }
        return signed.build();
    }

    /** The EK CA bundle (PEM) AKs must chain to; empty when any AK is trusted. */
    public String ekCaPem() throws IOException {
        Path ekCa = ekCaFile();
        return ekCa == null ? "" : Files.readString(ekCa);
    }

    private Path ekCaFile() {
        return akTrust != null ? akTrust.ekCa : defaultEkCa();
    }

    private Measurements loadMeasurements() throws IOException, MeasurementsException {
        if (measurementsKey != null) {
            return MeasurementsFile.verify(measurements, Files.readString(measurementsKey));
        }
        return Measurements.parse(Files.readAllBytes(measurements));
    }

    private AkTrust trust() throws IOException, CertificateException {
        Path ekCa = ekCaFile();
        if (akTrust != null && akTrust.insecureTrustAnyAk) {
            return AkTrust.insecureTrustAnyAk();
        }
        if (ekCa == null) {
            throw new ParameterException(spec.commandLine(), "say how the AK is trusted: --ek-ca PEM (or "
                    + EK_CA_ENV + "=PEM in the environment), or --insecure-trust-any-ak");
        }
        try {
            return AkTrust.ekCaPem(Files.readAllBytes(ekCa));
        } catch (CertificateException e) {
            throw new CertificateException(ekCa + ": " + e.getMessage(), e);
        }
    }
}
