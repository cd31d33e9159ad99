package dev.sextant.cli.mini;

import dev.sextant.localcluster.mini.files.MiniLayout;
import picocli.CommandLine.Option;

import java.nio.file.Path;

/** Where the mini cluster's files are; shared by up, status and down. */
final class MiniDirOption {
    @Option(names = "--dir", paramLabel = "DIR",
            description = "the cluster's directory (default: $" + MiniLayout.ENV + ", else out/mini)")
    Path dir;

    MiniLayout layout() {
        return MiniLayout.of(dir);
    }
}
