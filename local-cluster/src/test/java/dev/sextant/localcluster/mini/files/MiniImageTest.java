package dev.sextant.localcluster.mini.files;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sextant.imagebuilder.EkCaBundle;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@DisplayName("The mini cluster's copy of the image")
class MiniImageTest {
    @TempDir
    Path dir;
    private Path built;
    private Path builtMeasurements;
    private Path image;
    private Path measurements;
    private Path signature;

    @BeforeEach
    void builtAndLinked() throws IOException {
        built = Files.writeString(dir.resolve("image.raw"), "image");
        builtMeasurements = Files.writeString(dir.resolve("measurements.json"), "{\"4\": \"a\"}");
        Path mini = Files.createDirectories(dir.resolve("mini"));
        image = Files.createLink(mini.resolve("image.raw"), built);
        measurements = Files.copy(builtMeasurements, mini.resolve("measurements.json"));
        signature = Files.writeString(mini.resolve("measurements.json.sig"), "sig");
    }

    @Test
    @DisplayName("is reused when it is the very file the builder left, with the same measurements, signed")
    void reusedWhenSame() throws IOException {
        assertTrue(MiniImage.isCurrent(built, builtMeasurements, image, measurements, signature));
    }

    @Test
    @DisplayName("is refreshed when the builder replaced the image (a rebuild writes a new file)")
    void staleAfterRebuild() throws IOException {
        Files.delete(built);
        Files.writeString(built, "image");
        assertFalse(MiniImage.isCurrent(built, builtMeasurements, image, measurements, signature));
    }

    @Test
    @DisplayName("is refreshed when the measurements differ or are unsigned, or when there is no copy yet")
    void staleMeasurementsOrMissing() throws IOException {
        Files.writeString(builtMeasurements, "{\"4\": \"b\"}");
        assertFalse(MiniImage.isCurrent(built, builtMeasurements, image, measurements, signature));
        Files.copy(builtMeasurements, measurements, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        Files.delete(signature);
        assertFalse(MiniImage.isCurrent(built, builtMeasurements, image, measurements, signature));
        Files.delete(image);
        assertFalse(MiniImage.isCurrent(built, builtMeasurements, image, measurements, signature));
    }

    @Test
    @DisplayName("boots an image given as built (--no-build) only if it holds this cluster's EK CA, else says how to build it")
    void givenImageMustHoldTheMiniCa() throws Exception {
        MiniLayout layout = new MiniLayout(dir.resolve("mini-dir"));
        HostIdentities.ca(layout, line -> { });
        EkCaBundle ca = EkCaBundle.read(List.of(layout.caCert()));
        MiniImage mini = new MiniImage(layout, line -> { });
        Path imageDir = Files.createDirectories(dir.resolve("out-image"));

        IOException none = assertThrows(IOException.class, () -> mini.requireEkCa(imageDir, ca));
        assertTrue(none.getMessage().contains("was not built with this mini cluster's EK CA " + layout.caCert()), none.getMessage());
        assertTrue(none.getMessage().contains("sextant image build --out " + imageDir + " --ek-ca " + layout.caCert()),
                none.getMessage());

        MiniLayout other = new MiniLayout(dir.resolve("other-mini-dir"));
        HostIdentities.ca(other, line -> { });
        Files.writeString(imageDir.resolve(EkCaBundle.OUT_FILE), EkCaBundle.read(List.of(other.caCert())).pem());
        assertThrows(IOException.class, () -> mini.requireEkCa(imageDir, ca));

        Files.writeString(imageDir.resolve(EkCaBundle.OUT_FILE), ca.pem());
        mini.requireEkCa(imageDir, ca);
    }
}
