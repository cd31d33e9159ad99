package dev.sextant.tpm.attest;

import dev.sextant.attestation.tpmstructures.TpmAlg;
import dev.sextant.attestation.tpmstructures.TpmFormatException;
import dev.sextant.proto.v1.AttestationDocument;
import dev.sextant.proto.v1.Quote;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;

/**
 * Writes a document's SHA-256 quote in the files tpm2-tools 5.4 reads, so the reference tool can
 * check our bytes: {@code tpm2_checkquote -u ak.pub -m quote.msg -s quote.sig -f pcrs.bin -g sha256 -q HEX}.
 */
public final class QuoteExport {
    // pcrs.bin is tpm2-tools' in-memory structs written raw on x86-64 (lib/pcr.c "serialized"):
    // TPML_PCR_SELECTION = u32 count + 16 x TPMS_PCR_SELECTION{u16 hash, u8 sizeofSelect, u8[4], pad},
    // then a u32 number of TPML_DIGEST, each = u32 count + 8 x TPM2B_DIGEST{u16 size, u8[64]}.
    // All host (little) endian. Checked against a file written by tpm2_quote -o.
    private static final int SELECTION_BANKS = 16;
    private static final int SELECTION_SIZE = 4 + SELECTION_BANKS * 8;
    private static final int DIGESTS_PER_LIST = 8;
    private static final int DIGEST_LIST_SIZE = 4 + DIGESTS_PER_LIST * (2 + 64);
    private static final int PCRS = 24;

    private QuoteExport() {}

    /** The four files and the qualifying data (TPMS_ATTEST.extraData) as hex for {@code -q}. */
    public record Exported(Path akPub, Path message, Path signature, Path pcrs, String qualifyingDataHex) {}

    public static Exported write(AttestationDocument document, Path dir) throws IOException, TpmFormatException {
        Quote quote = sha256Quote(document);
        byte[] akPublic = document.getAkPublic().toByteArray();
        byte[] akPub = ByteBuffer.allocate(2 + akPublic.length).putShort((short) akPublic.length).put(akPublic).array();
        byte[] attest = quote.getAttest().toByteArray();
        Exported out = new Exported(dir.resolve("ak.pub"), dir.resolve("quote.msg"), dir.resolve("quote.sig"),
                dir.resolve("pcrs.bin"), HexFormat.of().formatHex(QuotedPcrDigest.parse(attest).extraData()));
        Files.write(out.akPub(), akPub);
        Files.write(out.message(), attest);
        Files.write(out.signature(), quote.getSignature().toByteArray());
        Files.write(out.pcrs(), pcrsFile(quote));
        return out;
    }

    private static Quote sha256Quote(AttestationDocument document) throws TpmFormatException {
        for (Quote q : document.getQuotesList()) {
            if (q.getHashAlgorithm() == TpmAlg.SHA256) {
                return q;
            }
        }
        throw new TpmFormatException("AttestationDocument", "quotes", 0, "no SHA-256 quote");
    }

    static byte[] pcrsFile(Quote quote) throws TpmFormatException {
        int lists = (PCRS + DIGESTS_PER_LIST - 1) / DIGESTS_PER_LIST;
        ByteBuffer b = ByteBuffer.allocate(SELECTION_SIZE + 4 + lists * DIGEST_LIST_SIZE).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(1).putShort((short) TpmAlg.SHA256).put((byte) 3)
                .put((byte) 0xff).put((byte) 0xff).put((byte) 0xff).put((byte) 0);
        b.position(SELECTION_SIZE);
        b.putInt(lists);
        for (int list = 0; list < lists; list++) {
            int start = SELECTION_SIZE + 4 + list * DIGEST_LIST_SIZE;
            b.position(start).putInt(DIGESTS_PER_LIST);
            for (int k = 0; k < DIGESTS_PER_LIST; k++) {
                byte[] value = pcr(quote, list * DIGESTS_PER_LIST + k);
                b.position(start + 4 + k * 66).putShort((short) value.length).put(value);
            }
        }
        return b.array();
    }

    private static byte[] pcr(Quote quote, int index) throws TpmFormatException {
        var value = quote.getPcrsMap().get(index);
        if (value == null || value.size() != 32) {
            throw new TpmFormatException("Quote", "pcrs[" + index + "]", 0, "missing or not 32 bytes");
        }
        return value.toByteArray();
    }
}
