package dev.sextant.localcluster.mini.files;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.sextant.localcluster.mini.node.NodeRole;
import dev.sextant.localcluster.qemu.ProcessRef;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code mini.json}: what {@code mini up} started, so {@code status} and {@code down} (other
 * processes, later) find the nodes: per node its role, forwarded ports (guest to host), console
 * log, and the QEMU and swtpm processes by pid. No secret is kept here.
 */
public record MiniState(int version, String phase, String startedAt, String image, String clusterId,
                        List<Node> nodes) {
    public static final int VERSION = 1;
    /** Phases: starting (up is still running), up (the summary was printed), failed, stopped (down ran). */
    public static final String STARTING = "starting";
    public static final String UP = "up";
    public static final String FAILED = "failed";
    public static final String STOPPED = "stopped";

    private static final ObjectMapper JSON = new ObjectMapper()
            .enable(SerializationFeature.INDENT_OUTPUT)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    public MiniState {
        nodes = List.copyOf(nodes);
    }

    public record Node(String name, NodeRole role, Map<Integer, Integer> ports, String consoleLog,
                       ProcessRef qemu, ProcessRef swtpm) {
        public Node {
            ports = Map.copyOf(ports);
        }

        /** The processes of this node that still run. */
        public List<ProcessRef> running() {
            return java.util.stream.Stream.of(qemu, swtpm).filter(p -> p != null && p.alive()).toList();
        }

        public int hostPort(int guestPort) {
            Integer port = ports.get(guestPort);
            if (port == null) {
                throw new IllegalArgumentException(name + " has no forward for guest port " + guestPort);
            }
            return port;
        }
    }

    public MiniState withPhase(String newPhase) {
        return new MiniState(version, newPhase, startedAt, image, clusterId, nodes);
    }

    public MiniState withClusterId(String id) {
        return new MiniState(version, phase, startedAt, image, id, nodes);
    }

    public MiniState withNode(Node node) {
        List<Node> updated = new java.util.ArrayList<>(nodes.stream().filter(n -> !n.name().equals(node.name())).toList());
        updated.add(node);
        return new MiniState(version, phase, startedAt, image, clusterId, updated);
    }

    public Optional<String> clusterIdIfKnown() {
        return Optional.ofNullable(clusterId).filter(s -> !s.isBlank());
    }

    /** Every process of the cluster that still runs. */
    public List<ProcessRef> running() {
        return nodes.stream().flatMap(n -> n.running().stream()).toList();
    }

    public byte[] toJson() {
        try {
            return JSON.writeValueAsBytes(this);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write the mini state as JSON", e);
        }
    }

    public static MiniState parse(byte[] json, Path from) throws IOException {
        MiniState state;
        try {
            state = JSON.readValue(json, MiniState.class);
        } catch (JsonProcessingException e) {
            throw new IOException(from + " is not a mini cluster state file: " + e.getOriginalMessage());
        }
        if (state.version() != VERSION) {
            throw new IOException(from + " has state version " + state.version() + "; this sextant reads version " + VERSION);
        }
        return state;
    }

    public static Optional<MiniState> read(Path file) throws IOException {
        return Files.exists(file) ? Optional.of(parse(Files.readAllBytes(file), file)) : Optional.empty();
    }

    /** Writes via a temporary file and a rename, so a reader never sees half a state. */
    public void write(Path file) throws IOException {
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        Files.write(tmp, toJson());
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }
}
