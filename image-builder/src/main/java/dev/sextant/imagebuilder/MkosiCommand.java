package dev.sextant.imagebuilder;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The mkosi 24 command line for one build: the repository's configuration, the generated apt
 * sources (package-manager tree) and node software (extra tree), scratch and cache directories
 * kept between builds ({@code --incremental}: with the cached base tree a rebuild takes seconds, not minutes),
 * and the image's version, which mkosi writes into os-release (it does not change mkosi's cache key).
 */
public record MkosiCommand(BuildRequest request, Path packageManagerTree, Path nodeTree) {
    public List<String> arguments(String imageVersion) {
        List<String> args = new ArrayList<>(List.of("mkosi",
                "--directory", request.mkosiDir().toString(),
                "--package-manager-tree", packageManagerTree.toString(),
                "--extra-tree", nodeTree.toString(),
                "--output-dir", request.outDir().toString(),
                "--workspace-dir", request.workDir().toString(),
                "--cache-dir", request.cacheDir().toString(),
                "--incremental", "yes",
                "--image-version", imageVersion,
                "--force"));
        args.addAll(request.mkosiArgs());
        args.add("build");
        return args;
    }
}
