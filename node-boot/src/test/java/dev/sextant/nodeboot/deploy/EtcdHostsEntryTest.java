package dev.sextant.nodeboot.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@DisplayName("The etcd member's own name in the node's hosts file")
class EtcdHostsEntryTest {
    private static final String LINE = "10.0.2.15\tetcd-cp-0.internal.demo\t" + EtcdHostsEntry.MARK + "\n";

    @TempDir
    Path dir;

    @Test
    @DisplayName("is one line after everything else, which stays byte for byte (endpoint discovery's block included), and is replaced, not repeated")
    void oneLineBesideTheRest() throws Exception {
        String discovery = "127.0.0.1\tlocalhost\n\n# Begin host entries managed by sextant discovery - do not edit\n"
                + "10.0.2.16\tapi.internal.demo\n# End host entries managed by sextant discovery\n";
        Path hosts = Files.writeString(dir.resolve("hosts"), discovery);
        EtcdHostsEntry.write(hosts, "etcd-cp-0.internal.demo", "10.0.2.99");
        EtcdHostsEntry.write(hosts, "etcd-cp-0.internal.demo", "10.0.2.15");
        assertEquals(discovery + LINE, Files.readString(hosts));
        assertEquals("rw-r--r--", PosixFilePermissions.toString(Files.getPosixFilePermissions(hosts)));
    }

    @Test
    @DisplayName("follows the image's /etc/hosts link into /run, where nothing may be written yet after a reboot")
    void followsTheLink() throws Exception {
        Path run = dir.resolve("run/sextant/hosts");
        Path etc = Files.createDirectories(dir.resolve("etc"));
        Path hosts = Files.createSymbolicLink(etc.resolve("hosts"), Path.of("../run/sextant/hosts"));
        EtcdHostsEntry.write(hosts, "etcd-cp-0.internal.demo", "10.0.2.15");
        assertEquals(LINE, Files.readString(run));
        assertEquals(Path.of("../run/sextant/hosts"), Files.readSymbolicLink(hosts), "the link stays a link");
    }
}
