package dev.sextant.tpm.command;

import dev.sextant.attestation.tpm.TpmFormatException;
import dev.sextant.attestation.tpm.TpmReader;
import dev.sextant.attestation.tpm.TpmWriter;

import java.util.BitSet;

/**
 * A TPML_PCR_SELECTION over one bank (TPM 2.0 Part 2, §10.9.7): count, then per bank the hash,
 * sizeofSelect and a little-endian-by-byte bitmap where bit (i % 8) of byte (i / 8) selects PCR i.
 */
public record PcrSelection(int hashAlg, BitSet pcrs) {
    public static final int PCR_COUNT = 24;
    private static final int SIZEOF_SELECT = PCR_COUNT / 8;

    public PcrSelection {
        pcrs = (BitSet) pcrs.clone();
    }

    @Override
    public BitSet pcrs() { return (BitSet) pcrs.clone(); }

    /** All 24 PCRs of the bank: what every Sextant quote covers. */
    public static PcrSelection all(int hashAlg) {
        BitSet all = new BitSet(PCR_COUNT);
        all.set(0, PCR_COUNT);
        return new PcrSelection(hashAlg, all);
    }

    public boolean isEmpty() { return pcrs.isEmpty(); }

    /** The bitmap bytes (pcrSelect) of this bank. */
    public byte[] bitmap() {
        byte[] select = new byte[SIZEOF_SELECT];
        pcrs.stream().forEach(i -> select[i / 8] |= (byte) (1 << (i % 8)));
        return select;
    }

    public void marshal(TpmWriter w) {
        w.u32(1).u16(hashAlg).u8(SIZEOF_SELECT).bytes(bitmap());
    }

    /** Parses a TPML_PCR_SELECTION that holds at most one bank (what our requests get back). */
    public static PcrSelection parse(TpmReader r, int expectedHash) throws TpmFormatException {
        long count = r.u32("pcrSelections.count");
        if (count == 0) {
            return new PcrSelection(expectedHash, new BitSet());
        }
        if (count != 1) {
            throw r.fail("pcrSelections.count", count + " banks where one was asked for");
        }
        int hash = r.u16("pcrSelections[0].hash");
        if (hash != expectedHash) {
            throw r.fail("pcrSelections[0].hash", String.format("bank 0x%04x where 0x%04x was asked for", hash, expectedHash));
        }
        byte[] select = r.bytes(r.u8("pcrSelections[0].sizeofSelect"), "pcrSelections[0].pcrSelect");
        BitSet pcrs = new BitSet();
        for (int i = 0; i < select.length * 8; i++) {
            if ((select[i / 8] & (1 << (i % 8))) != 0) {
                pcrs.set(i);
            }
        }
        return new PcrSelection(hash, pcrs);
    }
}
