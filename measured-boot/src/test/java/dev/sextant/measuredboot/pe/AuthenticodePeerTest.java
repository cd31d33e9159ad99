package dev.sextant.measuredboot.pe;

import dev.sextant.measuredboot.io.FileSource;
import dev.sextant.measuredboot.testing.Fixtures;
import dev.sextant.measuredboot.testing.Tools;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;

@Tag("peer")
@DisplayName("The Authenticode SHA-256 we compute")
class AuthenticodePeerTest {
    private static final Pattern PESIGN = Pattern.compile("hash: ([0-9a-f]{64})");
    private static final Pattern OSSL = Pattern.compile("Calculated message digest\\s*:\\s*([0-9A-F]{64})");

    @TempDir
    Path tmp;

    private static Path resolve(String name) throws Exception {
        if (name.equals("kernel")) {
            return Fixtures.kernel();
        }
        Path p = Path.of(Tools.STUB_DIR, name);
        if (!Files.exists(p)) {
            Tools.skip(p + " is not installed (systemd-boot-efi)");
        }
        return p;
    }

    private static String ours(Path file) throws Exception {
        try (FileSource src = FileSource.open(file)) {
            return HexFormat.of().formatHex(Authenticode.sha256(src));
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"systemd-bootx64.efi", "linuxx64.efi.stub", "addonx64.efi.stub", "kernel"})
    @DisplayName("equals pesign's hash of the same unsigned Debian EFI binary")
    void equalsPesign(String name) throws Exception {
        Tools.require("pesign");
        Path file = resolve(name);
        Matcher m = PESIGN.matcher(Tools.run(null, "pesign", "-h", "-i", file.toString()).ok().out());
        assertEquals(true, m.find(), "pesign printed a hash");
        assertEquals(m.group(1), ours(file));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"systemd-bootx64.efi", "linuxx64.efi.stub", "kernel"})
    @DisplayName("equals osslsigncode's calculated digest after signing a copy, and ignores the signature it added")
    void equalsOsslsigncodeOnSignedCopy(String name) throws Exception {
        Tools.require("osslsigncode", "openssl");
        Path file = resolve(name);
        Path key = tmp.resolve("k.pem");
        Path cert = tmp.resolve("c.pem");
        Tools.run(tmp, "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key.toString(),
                "-out", cert.toString(), "-days", "1", "-subj", "/CN=throwaway").ok();
        Path signed = tmp.resolve("signed.efi");
        Tools.run(tmp, "osslsigncode", "sign", "-certs", cert.toString(), "-key", key.toString(), "-h", "sha256",
                "-in", file.toString(), "-out", signed.toString()).ok();
        Matcher m = OSSL.matcher(Tools.run(tmp, "osslsigncode", "verify", "-in", signed.toString()).out());
        assertEquals(true, m.find(), "osslsigncode printed a calculated digest");
        String peer = m.group(1).toLowerCase(Locale.ROOT);
        assertEquals(peer, ours(signed), "signed copy");
        assertEquals(peer, ours(file), "unsigned original");
    }
}
