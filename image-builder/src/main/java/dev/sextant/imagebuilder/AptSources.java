package dev.sextant.imagebuilder;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * The apt sources mkosi gets for the image: only bookworm, bookworm-updates and
 * bookworm-security, on the mirrors this host already uses. mkosi's own list adds a debug suite
 * that is unreachable on a machine limited to the Debian mirrors.
 */
public final class AptSources {
    static final Path DEB822 = Path.of("/etc/apt/sources.list.d/debian.sources");
    static final Path ONE_LINE = Path.of("/etc/apt/sources.list");

    private AptSources() {}

    /** The deb822 sources text for the host's mirrors (read from {@code deb822} or {@code oneLine}). */
    public static String forHost(Path deb822, Path oneLine) throws BuildException {
        List<Mirror> modern = uris(deb822);
        List<Mirror> classic = classicUris(oneLine);
        String main = first(modern, false).or(() -> first(classic, false)).orElseThrow(() ->
                new BuildException("no Debian mirror configured in " + deb822 + " or " + oneLine));
        String security = first(modern, true).or(() -> first(classic, true))
                .orElse(main.replaceAll("/debian/?$", "") + "/debian-security");
        return stanza(main, "bookworm bookworm-updates") + "\n" + stanza(security, "bookworm-security");
    }

    /** Writes {@code etc/apt/sources.list.d/mkosi.sources} under a fresh package-manager tree. */
    public static Path writeTree(Path tree, String sources) throws BuildException {
        try {
            Path dir = Files.createDirectories(tree.resolve("etc/apt/sources.list.d"));
            return Files.writeString(dir.resolve("mkosi.sources"), sources);
        } catch (IOException e) {
            throw new BuildException("cannot write the apt sources under " + tree + ": " + e.getMessage(), e);
        }
    }

    private static String stanza(String uri, String suites) {
        return String.join("\n", "Types: deb", "URIs: " + uri, "Suites: " + suites, "Components: main",
                "Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg", "");
    }

    /** One configured mirror; security mirrors carry bookworm-security. */
    private record Mirror(String uri, boolean security) {}

    private static Optional<String> first(List<Mirror> mirrors, boolean security) {
        return mirrors.stream().filter(m -> m.security() == security).map(Mirror::uri).findFirst();
    }

    private static List<Mirror> uris(Path deb822) throws BuildException {
        return lines(deb822).stream().filter(l -> l.startsWith("URIs:"))
                .map(l -> l.substring("URIs:".length()).trim().split("\\s+")[0])
                .map(u -> new Mirror(u, u.contains("security"))).toList();
    }

    /** {@code deb [options] URI SUITE COMPONENTS...} lines for bookworm suites. */
    private static List<Mirror> classicUris(Path oneLine) throws BuildException {
        return lines(oneLine).stream().map(String::trim).filter(l -> l.startsWith("deb "))
                .map(l -> l.replaceAll("\\[[^]]*]", " ").trim().split("\\s+"))
                .filter(f -> f.length > 2 && f[2].startsWith("bookworm"))
                .map(f -> new Mirror(f[1], f[2].equals("bookworm-security"))).toList();
    }

    private static List<String> lines(Path file) throws BuildException {
        try {
            return Files.isReadable(file) ? Files.readAllLines(file) : List.of();
        } catch (IOException e) {
            throw new BuildException("cannot read " + file + ": " + e.getMessage(), e);
        }
    }
}
