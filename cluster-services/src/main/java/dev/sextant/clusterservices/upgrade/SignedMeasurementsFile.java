package dev.sextant.clusterservices.upgrade;

import dev.sextant.attestation.policy.MeasurementSet;
import dev.sextant.attestation.policy.MeasurementsException;
import dev.sextant.attestation.policy.MeasurementsFile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * A measurements file and its {@code .sig}, held in memory so that the bytes that were verified are
 * the bytes that go into the cluster (a file changed after the check cannot slip in).
 */
public record SignedMeasurementsFile(byte[] json, byte[] signature) {

    /** Reads {@code file} and {@code file.sig}; a missing signature is an error, never "unsigned". */
    public static SignedMeasurementsFile read(Path file) throws MeasurementsException {
        Path sig = MeasurementsFile.signatureFile(file);
        try {
            return new SignedMeasurementsFile(Files.readAllBytes(file), Files.readAllBytes(sig));
        } catch (NoSuchFileException e) {
            throw new MeasurementsException(e.getFile() + " does not exist"
                    + (e.getFile().equals(sig.toString()) ? " (sign the measurements with `sextant measurements sign`)" : ""), e);
        } catch (IOException e) {
            throw new MeasurementsException("reading " + file + " or its signature: " + e, e);
        }
    }

    /**
     * Checks the signature with the cluster's measurements key over exactly these bytes, and that they are a
     * measurement set (format 2, or 1 as one image).
     */
    public MeasurementSet verify(String publicKeyPem) throws MeasurementsException {
        return MeasurementsFile.verifySet(json, signature, publicKeyPem);
    }
}
