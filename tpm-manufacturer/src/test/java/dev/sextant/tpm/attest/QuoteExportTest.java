package dev.sextant.tpm.attest;

import dev.sextant.attestation.Purpose;
import dev.sextant.attestation.Qualification;
import dev.sextant.proto.v1.AttestationDocument;
import dev.sextant.tpmmanufacturer.testkit.Swtpm;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

/** Our quote checked by the reference tool, tpm2_checkquote (tpm2-tools 5.4). */
@Tag("peer")
class QuoteExportTest {
    private static final byte[] NONCE = "nonce".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] USER_DATA = "user data".getBytes(StandardCharsets.US_ASCII);
    private static Swtpm swtpm;
    private static AttestationDocument doc;

    @BeforeAll
    static void quote() throws Exception {
        Swtpm.assumeAvailable();
        boolean present = Swtpm.onPath("tpm2_checkquote");
        if (!present) {
            System.err.println("SKIPPED: tpm2_checkquote is not on PATH (install tpm2-tools: scripts/setup.sh)");
        }
        Assumptions.assumeTrue(present, "tpm2_checkquote is not on PATH (install tpm2-tools: scripts/setup.sh)");
        swtpm = Swtpm.provisioned();
        swtpm.client().pcr().extend(23, new byte[32]);    // not all PCRs zero: the digest must place values right
        try (TpmAttester attester = new TpmAttester(swtpm.client(), Path.of("/nonexistent"))) {
            doc = attester.attest(Purpose.VERIFY, NONCE, USER_DATA);
        }
    }

    @AfterAll
    static void stop() throws Exception {
        if (swtpm != null) {
            swtpm.close();
        }
    }

    static int checkquote(QuoteExport.Exported e, Path dir) throws Exception {
        Process p = new ProcessBuilder("tpm2_checkquote", "-u", e.akPub().toString(), "-m", e.message().toString(),
                "-s", e.signature().toString(), "-f", e.pcrs().toString(), "-g", "sha256", "-q", e.qualifyingDataHex())
                .redirectErrorStream(true).redirectOutput(dir.resolve("checkquote.log").toFile()).start();
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("tpm2_checkquote hung");
        }
        return p.exitValue();
    }

    @Test
    @DisplayName("tpm2_checkquote accepts our quote, AK public area, signature and PCR values")
    void accepted(@TempDir Path dir) throws Exception {
        QuoteExport.Exported e = QuoteExport.write(doc, dir);
        assertEquals(0, checkquote(e, dir), () -> log(dir));
    }

    @Test
    @DisplayName("tpm2_checkquote accepts the purpose-bound qualifying data computed independently of the quote")
    void acceptsPurposeBoundQualifyingData(@TempDir Path dir) throws Exception {
        QuoteExport.Exported e = QuoteExport.write(doc, dir);
        String expected = HexFormat.of().formatHex(Qualification.of(Purpose.VERIFY, NONCE, USER_DATA));
        QuoteExport.Exported computed = new QuoteExport.Exported(e.akPub(), e.message(), e.signature(), e.pcrs(), expected);
        assertEquals(0, checkquote(computed, dir), () -> log(dir));
    }

    @Test
    @DisplayName("tpm2_checkquote rejects the quote when one byte of the signed message is flipped")
    void flippedMessage(@TempDir Path dir) throws Exception {
        QuoteExport.Exported e = QuoteExport.write(doc, dir);
        flipByte(e.message(), 1);
        assertNotEquals(0, checkquote(e, dir));
    }

    @Test
    @DisplayName("tpm2_checkquote rejects the quote when one PCR value differs from the quoted digest")
    void flippedPcr(@TempDir Path dir) throws Exception {
        QuoteExport.Exported e = QuoteExport.write(doc, dir);
        flipByte(e.pcrs(), 100);
        assertNotEquals(0, checkquote(e, dir));
    }

    @Test
    @DisplayName("tpm2_checkquote rejects the quote for other qualifying data")
    void otherQualifyingData(@TempDir Path dir) throws Exception {
        QuoteExport.Exported e = QuoteExport.write(doc, dir);
        QuoteExport.Exported other = new QuoteExport.Exported(e.akPub(), e.message(), e.signature(), e.pcrs(),
                "00".repeat(32));
        assertNotEquals(0, checkquote(other, dir));
    }

    static String log(Path dir) {
        try {
            return String.join("\n", List.of(Files.readString(dir.resolve("checkquote.log"))));
        } catch (Exception ex) {
            return ex.toString();
        }
    }

    /** Flips the low bit of the byte {@code fromEnd} bytes before the end of {@code file}. */
    private static void flipByte(Path file, int fromEnd) throws java.io.IOException {
        byte[] bytes = Files.readAllBytes(file);
        bytes[bytes.length - fromEnd] ^= 1;
        Files.write(file, bytes);
    }
}
