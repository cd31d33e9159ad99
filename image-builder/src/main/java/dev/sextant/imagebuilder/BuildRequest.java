package dev.sextant.imagebuilder;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * What {@link ImageBuilder} builds: the mkosi configuration directory ({@code <repo>/mkosi}),
 * the output directory, the scratch and cache directories mkosi reuses between builds, the node
 * software (programs and their jars), an optional k3s binary to ship, the EK CA the nodes verify
 * their join service's TPM against (none: they join no cluster), the image's version (none: the build's
 * time, {@link ImageVersion#builtAt}), extra mkosi arguments, and the earlier images whose nodes' disk
 * records this image's nodes accept ({@link UpgradesFrom}).
 */
public record BuildRequest(Path mkosiDir, Path outDir, Path workDir, Path cacheDir,
                           Optional<NodeSoftware> node, Optional<Path> k3s, EkCaBundle ekCa, Optional<ImageVersion> imageVersion,
                           List<String> mkosiArgs, boolean force, UpgradesFrom upgradesFrom) {
    public BuildRequest {
        upgradesFrom = upgradesFrom == null ? UpgradesFrom.NONE : upgradesFrom;
        mkosiDir = mkosiDir.toAbsolutePath().normalize();
        outDir = outDir.toAbsolutePath().normalize();
        workDir = workDir.toAbsolutePath().normalize();
        cacheDir = cacheDir.toAbsolutePath().normalize();
        mkosiArgs = List.copyOf(mkosiArgs);
    }

    /** The layout scripts/build-image.sh used: scratch and cache under {@code <repo>/.build}. */
    public static BuildRequest forRepo(Path repo, Path outDir, Optional<NodeSoftware> node) {
        Path build = repo.resolve(".build");
        return new BuildRequest(repo.resolve("mkosi"), outDir, build.resolve("mkosi-work"),
                build.resolve("mkosi-cache"), node, Optional.empty(), EkCaBundle.NONE, Optional.empty(), List.of(), false,
                UpgradesFrom.NONE);
    }

    public BuildRequest withMkosiArgs(List<String> args, boolean forceRebuild) {
        return new BuildRequest(mkosiDir, outDir, workDir, cacheDir, node, k3s, ekCa, imageVersion, args, forceRebuild, upgradesFrom);
    }

    /** Ships {@code binary} as /usr/local/bin/k3s, where the node's Kubernetes driver looks for it. */
    public BuildRequest withK3s(Optional<Path> binary) {
        return new BuildRequest(mkosiDir, outDir, workDir, cacheDir, node, binary, ekCa, imageVersion, mkosiArgs, force, upgradesFrom);
    }

    /** Ships {@code bundle} as the nodes' EK CA ({@link EkCaBundle#IMAGE_PATH}). */
    public BuildRequest withEkCa(EkCaBundle bundle) {
        return new BuildRequest(mkosiDir, outDir, workDir, cacheDir, node, k3s, bundle, imageVersion, mkosiArgs, force, upgradesFrom);
    }

    /** Writes {@code version} into the image's os-release; none: the build's time. */
    public BuildRequest withImageVersion(Optional<ImageVersion> version) {
        return new BuildRequest(mkosiDir, outDir, workDir, cacheDir, node, k3s, ekCa, version, mkosiArgs, force, upgradesFrom);
    }

    /** Nodes of this image accept the disk records of nodes of {@code earlier} (and re-record them as this image's). */
    public BuildRequest withUpgradesFrom(UpgradesFrom earlier) {
        return new BuildRequest(mkosiDir, outDir, workDir, cacheDir, node, k3s, ekCa, imageVersion, mkosiArgs, force, earlier);
    }

    public Path image() {
        return outDir.resolve("image.raw");
    }
}
