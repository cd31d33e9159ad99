package dev.sextant.cli.input;

import dev.sextant.attestation.policy.MeasurementSet;
import dev.sextant.attestation.policy.MeasurementsException;
import dev.sextant.attestation.policy.MeasurementsFile;
import dev.sextant.cli.failure.CliFailure;

import java.nio.file.Files;
import java.nio.file.Path;

/** A measurements file given on the command line, and the signature file next to it. */
public final class MeasurementsInput {
    public static final String REMEDY = "pass the measurements.json that `sextant image build` wrote";

    private MeasurementsInput() {}

    /** The images (and their expected PCR values) of an unsigned measurement set, format 2 or 1. */
    public static MeasurementSet parse(String option, Path file) {
        byte[] json = InputFiles.read(option, file, REMEDY);
        try {
            return MeasurementSet.parse(json);
        } catch (MeasurementsException e) {
            throw new CliFailure(option + " " + file + ": not a measurements file (" + e.getMessage() + "): " + REMEDY, e);
        }
    }

    /** {@code <file>.sig}, which must exist: a missing one says how to make it. */
    public static Path signatureFile(String option, Path file) {
        InputFiles.read(option, file, REMEDY); // a missing file is told as that, not as a missing signature
        Path signature = MeasurementsFile.signatureFile(file);
        if (!Files.exists(signature)) {
            throw new CliFailure(option + " " + file + " has no signature file " + signature.getFileName()
                    + ": sign it with `sextant measurements sign --file " + file + " --key KEY.pem`");
        }
        return signature;
    }
}
