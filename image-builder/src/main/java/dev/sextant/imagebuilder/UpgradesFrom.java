package dev.sextant.imagebuilder;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The images an image upgrades from ({@code sextant image build --upgrades-from}): their writer
 * digests go into the image as node-boot's {@code sextant.remembered-disk.predecessor-writers}
 * ({@link #NODE_SETTINGS}, under the verity root and so in PCR 11), so a node upgraded to this image
 * accepts the state-disk record its TPM kept from one of them, and re-records it under this image's
 * own writer. Beside the image, {@link #OUT_FILE} lists them for tools that check an upgrade path
 * ({@link UpgradePath}); that file is a copy for the operator, the node reads only its measured one.
 */
public record UpgradesFrom(List<Predecessor> images) {
    public static final UpgradesFrom NONE = new UpgradesFrom(List.of());
    /** Beside the image: one line per predecessor, {@code VERSION WRITER}. */
    public static final String OUT_FILE = "upgrades-from";
    /** Where the image holds node-boot's image-side settings; sextant-node.service names it in MICRONAUT_CONFIG_FILES. */
    public static final String NODE_SETTINGS = "opt/sextant/etc/sextant-node.yml";

    public UpgradesFrom {
        // One entry per writer: the same image named twice (by two directories of one build) is listed once.
        Map<String, Predecessor> byWriter = new LinkedHashMap<>();
        for (Predecessor p : images) {
            byWriter.putIfAbsent(p.writer(), p);
        }
        images = List.copyOf(byWriter.values());
    }

    /** The images built in {@code outDirs}, each an earlier build's output directory. */
    public static UpgradesFrom read(List<Path> outDirs) throws BuildException {
        List<Predecessor> images = new ArrayList<>();
        for (Path dir : outDirs) {
            try {
                images.add(Predecessor.of(dir));
            } catch (BuildException e) {
                throw new BuildException("--upgrades-from " + dir + ": " + e.getMessage(), e);
            }
        }
        return new UpgradesFrom(images);
    }

    /** True when a node of this image accepts a record written under {@code writer}. */
    public boolean lists(String writer) {
        return images.stream().anyMatch(p -> p.writer().equalsIgnoreCase(writer));
    }

    /** node-boot's image-side settings: the predecessors' writer digests (an empty list: none). */
    String nodeSettings() {
        StringBuilder yaml = new StringBuilder("# Written by sextant image build (--upgrades-from): measured with the image.\n"
                + "sextant:\n  remembered-disk:\n    predecessor-writers:");
        if (images.isEmpty()) {
            yaml.append(" []\n");
        }
        for (Predecessor p : images) {
            yaml.append("\n      # image ").append(p.imageVersion()).append("\n      - \"").append(p.writer()).append('"');
        }
        return images.isEmpty() ? yaml.toString() : yaml.append('\n').toString();
    }

    /** Writes {@link #OUT_FILE} into {@code outDir}. */
    void store(Path outDir) throws BuildException {
        StringBuilder lines = new StringBuilder();
        images.forEach(p -> lines.append(p.imageVersion()).append(' ').append(p.writer()).append('\n'));
        Path file = outDir.resolve(OUT_FILE);
        try {
            Files.writeString(file, lines, StandardCharsets.US_ASCII);
        } catch (IOException e) {
            throw new BuildException("cannot write " + file + ": " + e.getMessage(), e);
        }
    }

    /** What {@link #store} wrote beside the image in {@code outDir}; none for a build without the file. */
    public static UpgradesFrom stored(Path outDir) throws BuildException {
        Path file = outDir.resolve(OUT_FILE);
        if (!Files.isRegularFile(file)) {
            return NONE;
        }
        List<Predecessor> images = new ArrayList<>();
        try {
            for (String line : Files.readAllLines(file, StandardCharsets.US_ASCII)) {
                if (line.isBlank()) {
                    continue;
                }
                String[] fields = line.trim().split(" ");
                if (fields.length != 2) {
                    throw new BuildException(file + ": not \"VERSION WRITER\": " + line);
                }
                images.add(new Predecessor(fields[0], fields[1]));
            }
        } catch (IOException | IllegalArgumentException e) {
            throw new BuildException("cannot read " + file + ": " + e.getMessage(), e);
        }
        return new UpgradesFrom(images);
    }
}
