package dev.sextant.joinapi.controlplane;

import com.google.protobuf.ByteString;
import dev.sextant.grpcsupport.Refusal;
import dev.sextant.joinapi.refusal.JoinRefusal;
import dev.sextant.proto.v1.ControlPlaneFile;
import dev.sextant.serviceconfig.JoinServiceConfig;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The PKI files a new control-plane node needs (CA cert+key, service-account key pair, front-proxy
 * and etcd CAs: whatever the configured directory holds, kubeadm's /etc/kubernetes/pki layout or
 * k3s's server/tls). Read on every control-plane join so rotated files are picked up; returned in
 * path order (Constellation returned a map in random order). Bounded so a wrong mount cannot make
 * the service ship a whole file system.
 */
@Singleton
public class ControlPlaneMaterial {
    static final int MAX_FILES = 64;
    static final long MAX_FILE_BYTES = 1 << 20;

    private final Optional<Path> directory;

    @Inject
    public ControlPlaneMaterial(JoinServiceConfig config) {
        this(Optional.of(config.controlPlaneDir().toString()));
    }

    public ControlPlaneMaterial(Optional<String> directory) {
        this.directory = directory.filter(d -> !d.isBlank()).map(Path::of);
    }

    public List<ControlPlaneFile> files() throws Refusal {
        Path dir = directory.orElseThrow(() -> new Refusal(JoinRefusal.INTERNAL,
                "this join service is not configured to admit control-plane nodes"));
        List<ControlPlaneFile> files = new ArrayList<>();
        try (Stream<Path> walk = Files.walk(dir, 3)) {
            for (Path p : walk.filter(Files::isRegularFile).filter(p -> !isHidden(dir, p)).sorted().toList()) {
                if (files.size() == MAX_FILES || Files.size(p) > MAX_FILE_BYTES) {
                    throw new Refusal(JoinRefusal.INTERNAL, "the control-plane directory holds too much data");
                }
                files.add(ControlPlaneFile.newBuilder().setName(dir.relativize(p).toString())
                        .setData(ByteString.copyFrom(Files.readAllBytes(p))).build());
            }
        } catch (IOException e) {
            throw new Refusal(JoinRefusal.INTERNAL, "cannot read the control-plane material", e);
        }
        return files;
    }

    /** Kubernetes Secret mounts hold "..data" and "..<timestamp>" entries beside the real names. */
    private static boolean isHidden(Path dir, Path p) {
        for (Path part : dir.relativize(p)) {
            if (part.toString().startsWith("..")) {
                return true;
            }
        }
        return false;
    }
}
