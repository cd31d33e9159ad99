package dev.sextant.attestation.policy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sextant.attestation.Variant;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Strict reader and canonical writer of a measurement set (docs/image-upgrades.md). Format 2 lists
 * images: {@code {"format": 2, "version": N, "variant": "...", "images": [{"imageVersion": "...",
 * "measurements": {...}}], "retired": [...]}}, each image's measurements held to every rule of
 * {@link MeasurementsJson}. A format-1 file ({@code {"version", "variant", "measurements"}}) reads as a
 * set of one image, {@value ImageMeasurements#UNVERSIONED}. Either may name the next signing key
 * ({@code "nextKey"}, {@link MeasurementsJson}). Writers write format 2.
 */
final class MeasurementSetJson {
    static final int FORMAT = 2;

    private MeasurementSetJson() {}

    static MeasurementSet parse(byte[] json) throws MeasurementsException {
        ObjectNode top = MeasurementsJson.object(MeasurementsJson.readTree(json), "the top level");
        if (!top.has("format") && !top.has("images")) {
            return MeasurementsJson.parseFormatOne(json);
        }
        MeasurementsJson.onlyFields(top, "the top level", Set.of("format", "version", "variant", "images", "retired", "nextKey"));
        JsonNode format = top.get("format");
        if (format == null || !format.isIntegralNumber() || format.asLong() != FORMAT) {
            throw new MeasurementsException("\"format\" must be " + FORMAT + " in a set that lists \"images\"");
        }
        long version = MeasurementsJson.version(top.get("version"));
        Variant variant = MeasurementsJson.variant(top.get("variant"));
        List<ImageMeasurements> images = images(variant, top.get("images"), "\"images\"");
        List<ImageMeasurements> retired = top.has("retired") ? images(variant, top.get("retired"), "\"retired\"") : List.of();
        try {
            return new MeasurementSet(version, variant, images, retired, MeasurementsJson.nextKey(top.get("nextKey")));
        } catch (IllegalArgumentException e) {
            throw new MeasurementsException("measurement set: " + e.getMessage(), e);
        }
    }

    private static List<ImageMeasurements> images(Variant variant, JsonNode node, String where) throws MeasurementsException {
        if (!(node instanceof ArrayNode array)) {
            throw new MeasurementsException(where + " must be a JSON array");
        }
        List<ImageMeasurements> images = new ArrayList<>();
        for (int i = 0; i < array.size(); i++) {
            String entry = where + "[" + i + "]";
            ObjectNode image = MeasurementsJson.object(array.get(i), entry);
            MeasurementsJson.onlyFields(image, entry, Set.of("imageVersion", "measurements"));
            JsonNode version = image.get("imageVersion");
            if (version == null || !version.isTextual()) {
                throw new MeasurementsException(entry + " has no \"imageVersion\" string");
            }
            String label = "image " + version.asText();
            Measurements measurements = MeasurementsJson.measurements(variant,
                    MeasurementsJson.object(image.get("measurements"), label + ": \"measurements\""), label);
            try {
                images.add(new ImageMeasurements(version.asText(), measurements));
            } catch (IllegalArgumentException e) {
                throw new MeasurementsException(entry + ": " + e.getMessage(), e);
            }
        }
        return images;
    }

    static byte[] write(MeasurementSet set) {
        ObjectNode root = MeasurementsJson.newObject();
        root.put("format", FORMAT);
        root.put("version", set.version());
        root.put("variant", set.variant().id());
        putImages(root.putArray("images"), set.images());
        putImages(root.putArray("retired"), set.retired());
        set.nextKey().ifPresent(k -> root.put("nextKey", k.pem()));
        return MeasurementsJson.bytes(root);
    }

    private static void putImages(ArrayNode array, List<ImageMeasurements> images) {
        for (ImageMeasurements image : images) {
            ObjectNode entry = array.addObject();
            entry.put("imageVersion", image.imageVersion());
            MeasurementsJson.putEntries(entry.putObject("measurements"), image.measurements());
        }
    }
}
