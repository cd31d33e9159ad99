package dev.sextant.imagebuilder;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.jar.JarFile;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import java.util.zip.ZipOutputStream;

/**
 * Signed jars (BouncyCastle's provider is one) as the image ships them: without their signature
 * files. The JVM archives no class of a signed jar for class-data sharing and checks every entry's
 * digest as it loads it, so a signed provider costs start-up time on every boot; OpenJDK does not
 * require JCE providers to be signed, and what the node runs is vouched for by the measured, verity-
 * protected root, not by a jar signature.
 */
final class SignedJars {
    private SignedJars() {
    }

    static boolean isSigned(Path jar) throws IOException {
        try (JarFile file = new JarFile(jar.toFile(), false)) {
            return file.stream().anyMatch(e -> isSignatureFile(e.getName()));
        }
    }

    /** Copies {@code jar} to {@code target} entry by entry, in order and with their times, leaving out the signature files. */
    static void copyUnsigned(Path jar, Path target) throws IOException {
        try (InputStream in = Files.newInputStream(jar); ZipInputStream zip = new ZipInputStream(in);
             OutputStream out = Files.newOutputStream(target); ZipOutputStream copy = new ZipOutputStream(out)) {
            for (ZipEntry entry = zip.getNextEntry(); entry != null; entry = zip.getNextEntry()) {
                if (isSignatureFile(entry.getName())) {
                    continue;
                }
                ZipEntry kept = new ZipEntry(entry.getName());
                kept.setTime(entry.getTime());
                copy.putNextEntry(kept);
                zip.transferTo(copy);
                copy.closeEntry();
            }
        }
    }

    /** META-INF/*.SF, its signature block (.RSA, .DSA, .EC) and SIG-* files: JarFile's own definition. */
    static boolean isSignatureFile(String name) {
        String upper = name.toUpperCase(Locale.ROOT);
        if (!upper.startsWith("META-INF/") || upper.indexOf('/', "META-INF/".length()) >= 0) {
            return false;
        }
        String file = upper.substring("META-INF/".length());
        return file.endsWith(".SF") || file.endsWith(".RSA") || file.endsWith(".DSA") || file.endsWith(".EC")
                || file.startsWith("SIG-");
    }
}
