package dev.sextant.etcd.testkit;

import static org.junit.jupiter.api.Assertions.fail;

import dev.sextant.etcd.process.EtcdProcess;
import java.nio.file.Files;

/** The real-etcd tests never skip: etcd is installed by scripts/setup.sh, and its absence is a failure. */
public final class EtcdInstalled {
    private EtcdInstalled() {
    }

    public static void require() {
        if (!Files.isExecutable(EtcdProcess.DEFAULT_BINARY)) {
            fail(EtcdProcess.DEFAULT_BINARY + " is missing: install Debian's etcd-server package (scripts/setup.sh does);"
                    + " the etcd tests fail rather than skip without it");
        }
    }
}
