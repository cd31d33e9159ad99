package dev.sextant.clusterservices.upgrade;

import dev.sextant.attestation.policy.MeasurementsException;
import dev.sextant.attestation.policy.MeasurementsFile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

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
     * Checks the signature with the cluster's measurements key and that the JSON parses, on a private
     * copy of exactly these bytes ({@link MeasurementsFile} verifies files).
     */
    public void verify(String publicKeyPem) throws MeasurementsException {
        Path dir = null;
        try {
            dir = Files.createTempDirectory("sextant-measurements");
            Path copy = dir.resolve("measurements.json");
            Files.write(copy, json);
            Files.write(MeasurementsFile.signatureFile(copy), signature);
            MeasurementsFile.verify(copy, publicKeyPem);
        } catch (IOException e) {
            throw new MeasurementsException("cannot stage the measurements for verification: " + e, e);
        } finally {
            deleteQuietly(dir);
        }
    }

    private static void deleteQuietly(Path dir) {
        if (dir == null) {
            return;
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // A leftover temp directory holds only public data.
        }
    }
}
