package dev.sextant.measuredboot.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * Real artefacts for tests: the Debian cloud kernel and bookworm's systemd-stub 252, fetched once
 * with apt-get download into target/peer-cache (the host has no /boot/vmlinuz), and UKIs built
 * by the host's ukify.
 */
public final class Fixtures {
    private static final Path CACHE = Path.of("target", "peer-cache").toAbsolutePath();

    private Fixtures() {
    }

    /** A Debian bookworm cloud kernel (PE with the EFI stub), or the test is skipped with the reason. */
    public static synchronized Path kernel() throws IOException, InterruptedException {
        Path found = find(Path.of("/boot"), "vmlinuz-");
        if (found != null) {
            return found;
        }
        Path dir = CACHE.resolve("kernel");
        found = find(dir.resolve("x/boot"), "vmlinuz-");
        if (found != null) {
            return found;
        }
        Tools.require("apt-get", "apt-cache", "dpkg-deb");
        String pkg = Tools.run(null, "apt-cache", "depends", "linux-image-cloud-amd64").out().lines()
                .filter(l -> l.contains("Depends: linux-image-")).map(l -> l.substring(l.indexOf("linux-image-")).trim())
                .findFirst().orElse(null);
        if (pkg == null) {
            Tools.skip("no linux-image-cloud-amd64 in the apt cache (run apt-get update)");
        }
        return downloadAndFind(dir, pkg, "x/boot", "vmlinuz-");
    }

    /** Bookworm's systemd-stub 252 (what the node image ships), or the test is skipped with the reason. */
    public static synchronized Path stub252() throws IOException, InterruptedException {
        Path dir = CACHE.resolve("stub252");
        Path found = find(dir.resolve("x/usr/lib/systemd/boot/efi"), "linuxx64.efi.stub");
        if (found != null) {
            return found;
        }
        Tools.require("apt-get", "apt-cache", "dpkg-deb");
        String version = Tools.run(null, "apt-cache", "madison", "systemd-boot-efi").out().lines()
                .map(l -> l.split("\\|")).filter(f -> f.length > 1 && f[1].trim().startsWith("252."))
                .map(f -> f[1].trim()).findFirst().orElse(null);
        if (version == null) {
            Tools.skip("no systemd-boot-efi 252.x in the apt cache (bookworm suite not configured?)");
        }
        return downloadAndFind(dir, "systemd-boot-efi=" + version, "x/usr/lib/systemd/boot/efi", "linuxx64.efi.stub");
    }

    private static Path downloadAndFind(Path dir, String pkg, String sub, String prefix)
            throws IOException, InterruptedException {
        Files.createDirectories(dir);
        Tools.Result dl = Tools.run(dir, "apt-get", "download", pkg);
        // apt-get is there (required above) and the package is in its lists: a failed download is a
        // failure of the test's peer, not a missing prerequisite, so it fails the test.
        if (dl.exit() != 0) {
            throw new AssertionError("apt-get download " + pkg + " failed: " + dl.err().strip());
        }
        try (Stream<Path> debs = Files.list(dir)) {
            for (Path deb : debs.filter(p -> p.toString().endsWith(".deb")).toList()) {
                Tools.run(dir, "dpkg-deb", "-x", deb.toString(), "x").ok();
            }
        }
        Path found = find(dir.resolve(sub), prefix);
        if (found == null) {
            throw new AssertionError(pkg + " did not contain " + sub + "/" + prefix + "*");
        }
        return found;
    }

    private static Path find(Path dir, String prefix) throws IOException {
        if (!Files.isDirectory(dir)) {
            return null;
        }
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.getFileName().toString().startsWith(prefix)).sorted().findFirst().orElse(null);
        }
    }

    /** Builds a UKI with the host's ukify: {@code extra} are further ukify options (--stub=, --splash=, ...). */
    public static Path ukify(Path dir, Path kernel, Path initrd, String cmdline, String osrel, String... extra)
            throws IOException, InterruptedException {
        Tools.require(Tools.UKIFY, Tools.PYTHON);
        List<String> cmd = new ArrayList<>(List.of(Tools.PYTHON, Tools.UKIFY, "build", "--linux=" + kernel));
        if (initrd != null) {
            cmd.add("--initrd=" + initrd);
        }
        if (cmdline != null) {
            Files.writeString(dir.resolve("cmdline.txt"), cmdline);
            cmd.add("--cmdline=@" + dir.resolve("cmdline.txt"));
        }
        if (osrel != null) {
            Files.writeString(dir.resolve("os-release"), osrel);
            cmd.add("--os-release=@" + dir.resolve("os-release"));
        }
        cmd.addAll(List.of(extra));
        Path out = dir.resolve("uki-" + System.nanoTime() + ".efi");
        cmd.add("--output=" + out);
        Tools.Result r = Tools.run(dir, cmd.toArray(String[]::new));
        if (r.exit() != 0) {
            if (r.err().contains("No module named 'pefile'")) {
                Tools.skip("ukify needs python3-pefile");
            }
            throw new AssertionError("ukify failed: " + r.err());
        }
        return out;
    }
}
