package dev.sextant.operatorfiles;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * What the operator knows of the cluster's machines from their own verified handshakes: for each state
 * disk, the AK of the machine that holds it ({@code sextant init} records the init node, as it proved
 * itself in init's handshake). {@code sextant recover} sends a disk's key only to that AK: a host that
 * boots the genuine image on another machine (or another TPM) and attaches the disk gets nothing. Not a
 * secret (AK names and disk UUIDs); written as
 * {@code {"clusterId":"<hex>","machines":[{"akName":"<hex>","stateDisk":"<uuid>"}]}}.
 */
public record ClusterRecordFile(String clusterId, List<Machine> machines) {
    public static final String DEFAULT_NAME = "sextant-cluster.json";
    private static final ObjectMapper JSON = new ObjectMapper()
            .enable(SerializationFeature.INDENT_OUTPUT)
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
    private static final Pattern HEX = Pattern.compile("[0-9a-f]+");
    private static final Pattern UUID = Pattern.compile("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");

    /** One machine: the AK name (hex) it proved, its state disk's LUKS UUID. */
    public record Machine(String akName, String stateDisk) {
        public Machine {
            if (akName == null || akName.length() % 2 != 0 || !HEX.matcher(akName).matches()) {
                throw new IllegalArgumentException("akName must be lower-case hex");
            }
            if (stateDisk == null || !UUID.matcher(stateDisk).matches()) {
                throw new IllegalArgumentException("stateDisk must be a lower-case UUID");
            }
        }

        public boolean holdsAk(byte[] ak) {
            return akName.equals(HexFormat.of().formatHex(ak));
        }
    }

    public ClusterRecordFile {
        Objects.requireNonNull(clusterId, "clusterId");
        machines = List.copyOf(machines);
    }

    /** The machine recorded for {@code stateDisk}. */
    public Optional<Machine> forDisk(String stateDisk) {
        return machines.stream().filter(m -> m.stateDisk().equals(stateDisk)).findFirst();
    }

    public static ClusterRecordFile read(Path file) throws IOException {
        try {
            return JSON.readValue(Files.readString(file), ClusterRecordFile.class);
        } catch (JsonProcessingException e) {
            throw new IOException(file + ": not a cluster record (" + e.getOriginalMessage() + ")", e);
        }
    }

    /**
     * Records {@code machine} in {@code file} for the cluster {@code clusterId}: added to the record of that
     * cluster (replacing an entry for the same disk), or a new record where the file is absent or names
     * another cluster.
     */
    public static ClusterRecordFile record(Path file, String clusterId, Machine machine) throws IOException {
        List<Machine> machines = new ArrayList<>();
        if (Files.exists(file)) {
            ClusterRecordFile known = read(file);
            if (known.clusterId().equals(clusterId)) {
                known.machines().stream().filter(m -> !m.stateDisk().equals(machine.stateDisk())).forEach(machines::add);
            }
        }
        machines.add(machine);
        ClusterRecordFile updated = new ClusterRecordFile(clusterId, machines);
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        Files.writeString(tmp, JSON.writeValueAsString(updated) + "\n", StandardCharsets.UTF_8);
        Files.move(tmp, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        return updated;
    }
}
