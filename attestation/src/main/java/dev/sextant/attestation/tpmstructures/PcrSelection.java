package dev.sextant.attestation.tpmstructures;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * TPML_PCR_SELECTION (TPM 2.0 Part 2, §10.9.7): the PCRs a quote covers or a command asks for, per
 * bank. Keeps the bytes it was parsed from (or encoded to). The TPM client and the verifier share it.
 */
public record PcrSelection(List<Bank> banks, byte[] raw) {
    /** PCRs of a PC client TPM bank; every Sextant quote covers all of them. */
    public static final int PCR_COUNT = 24;
    /** Part 2 §10.9.7: the list holds at most HASH_COUNT entries; 16 covers every defined hash. */
    static final int MAX_BANKS = 16;
    /** Part 2 §10.6.2: sizeofSelect is at least PCR_SELECT_MIN (3); we accept up to 64 PCRs. */
    static final int MAX_SELECT_BYTES = 8;

    /** TPMS_PCR_SELECTION (Part 2, §10.6.2): one bank's hash algorithm and selected PCR indices. */
    public record Bank(int hashAlg, SortedSet<Integer> pcrs) {
        public Bank {
            pcrs = Collections.unmodifiableSortedSet(new TreeSet<>(pcrs));
        }
    }

    public PcrSelection {
        banks = List.copyOf(banks);
        raw = raw.clone();
    }

    @Override
    public byte[] raw() { return raw.clone(); }

    /** One bank selecting {@code pcrs}: what a command asks for. */
    public static PcrSelection of(int hashAlg, SortedSet<Integer> pcrs) {
        return new PcrSelection(List.of(new Bank(hashAlg, pcrs)), encode(hashAlg, pcrs));
    }

    /** All 24 PCRs of one bank. */
    public static PcrSelection all(int hashAlg) {
        SortedSet<Integer> all = new TreeSet<>();
        for (int i = 0; i < PCR_COUNT; i++) {
            all.add(i);
        }
        return of(hashAlg, all);
    }

    public void marshal(TpmWriter w) {
        w.bytes(raw);
    }

    /**
     * Reads a selection that may name only {@code expectedHash}'s bank (what a command's response holds
     * when one bank was asked for) and returns that bank's PCRs; no bank at all means none.
     */
    public static SortedSet<Integer> readBank(TpmReader r, int expectedHash) throws TpmFormatException {
        List<Bank> banks = read(r).banks();
        if (banks.isEmpty()) {
            return new TreeSet<>();
        }
        if (banks.size() != 1) {
            throw r.fail("pcrSelections.count", banks.size() + " banks where one was asked for");
        }
        if (banks.get(0).hashAlg() != expectedHash) {
            throw r.fail("pcrSelections[0].hash",
                    String.format("bank 0x%04x where 0x%04x was asked for", banks.get(0).hashAlg(), expectedHash));
        }
        return banks.get(0).pcrs();
    }

    public static PcrSelection parse(byte[] bytes) throws TpmFormatException {
        TpmReader r = new TpmReader(bytes, "TPML_PCR_SELECTION");
        PcrSelection s = read(r);
        r.expectEnd();
        return s;
    }

    public static PcrSelection read(TpmReader r) throws TpmFormatException {
        int start = r.position();
        long count = r.u32("count");
        if (count > MAX_BANKS) {
            throw r.fail("count", count + " banks exceed the limit " + MAX_BANKS);
        }
        List<Bank> banks = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            int hash = r.u16("pcrSelections[" + i + "].hash");
            int size = r.u8("pcrSelections[" + i + "].sizeofSelect");
            if (size > MAX_SELECT_BYTES) {
                throw r.fail("pcrSelections[" + i + "].sizeofSelect", size + " exceeds " + MAX_SELECT_BYTES);
            }
            byte[] bitmap = r.bytes(size, "pcrSelections[" + i + "].pcrSelect");
            banks.add(new Bank(hash, indices(bitmap)));
        }
        return new PcrSelection(banks, r.consumedSince(start));
    }

    /** Bit i of byte j selects PCR 8j+i (Part 2, §10.6.2). */
    private static SortedSet<Integer> indices(byte[] bitmap) {
        SortedSet<Integer> out = new TreeSet<>();
        for (int j = 0; j < bitmap.length; j++) {
            for (int bit = 0; bit < 8; bit++) {
                if ((bitmap[j] & (1 << bit)) != 0) {
                    out.add(8 * j + bit);
                }
            }
        }
        return out;
    }

    /** Marshals one bank with the given PCRs; used by issuers and tests to build selections. */
    public static byte[] encode(int hashAlg, SortedSet<Integer> pcrs) {
        byte[] bitmap = new byte[3];
        for (int pcr : pcrs) {
            if (pcr / 8 >= bitmap.length) {
                bitmap = java.util.Arrays.copyOf(bitmap, pcr / 8 + 1);
            }
            bitmap[pcr / 8] |= (byte) (1 << (pcr % 8));
        }
        return new TpmWriter().u32(1).u16(hashAlg).u8(bitmap.length).bytes(bitmap).toByteArray();
    }
}
