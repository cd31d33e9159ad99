package dev.sextant.attestation.verify;

import dev.sextant.attestation.digest.Sha256;
import dev.sextant.attestation.tpmstructures.PcrSelection;
import dev.sextant.attestation.tpmstructures.TpmAlg;
import dev.sextant.attestation.tpmstructures.TpmsQuoteInfo;
import dev.sextant.proto.v1.Quote;
import com.google.protobuf.ByteString;

import java.security.MessageDigest;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Ties the document's reported PCR values to the signed quote: the selection is exactly the 24
 * SHA-256 PCRs and the values digest to pcrDigest (TPM 2.0 Part 3, §18.4.1: pcrDigest is the
 * hash of the concatenated selected PCRs in ascending index order).
 */
final class QuotedPcrs {
    static final int PCR_COUNT = 24;
    private static final int SHA256_SIZE = 32;

    private QuotedPcrs() {}

    static SortedMap<Integer, byte[]> check(TpmsQuoteInfo info, Quote quote) throws AttestationRejected {
        PcrSelection sel = info.pcrSelect();
        if (sel.banks().size() != 1 || sel.banks().get(0).hashAlg() != TpmAlg.SHA256) {
            throw new AttestationRejected(Reason.PCR_DIGEST_MISMATCH, "the quote does not select exactly the SHA-256 bank");
        }
        SortedMap<Integer, byte[]> pcrs = new TreeMap<>();
        for (Map.Entry<Integer, ByteString> e : quote.getPcrsMap().entrySet()) {
            pcrs.put(e.getKey(), e.getValue().toByteArray());
        }
        boolean allSelected = sel.banks().get(0).pcrs().size() == PCR_COUNT
                && sel.banks().get(0).pcrs().last() == PCR_COUNT - 1;
        if (!allSelected) {
            throw new AttestationRejected(Reason.PCR_DIGEST_MISMATCH,
                    "the quote selects PCRs " + sel.banks().get(0).pcrs() + " rather than all 24");
        }
        if (pcrs.size() != PCR_COUNT || pcrs.firstKey() != 0 || pcrs.lastKey() != PCR_COUNT - 1) {
            throw new AttestationRejected(Reason.PCR_DIGEST_MISMATCH,
                    "the document reports PCRs " + pcrs.keySet() + " rather than 0..23");
        }
        MessageDigest sha = Sha256.newDigest();
        for (Map.Entry<Integer, byte[]> e : pcrs.entrySet()) {
            if (e.getValue().length != SHA256_SIZE) {
                throw new AttestationRejected(Reason.PCR_DIGEST_MISMATCH,
                        "PCR " + e.getKey() + " has " + e.getValue().length + " bytes rather than 32");
            }
            sha.update(e.getValue());
        }
        byte[] computed = sha.digest();
        byte[] quoted = info.pcrDigest();
        if (!MessageDigest.isEqual(quoted, computed)) {
            throw new AttestationRejected(Reason.PCR_DIGEST_MISMATCH,
                    "the reported PCR values do not digest to the quote's pcrDigest");
        }
        return pcrs;
    }
}
