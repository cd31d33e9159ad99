package dev.sextant.tpm.command;

import dev.sextant.attestation.tpmstructures.PcrSelection;
import dev.sextant.attestation.tpmstructures.TpmAlg;
import dev.sextant.attestation.tpmstructures.TpmFormatException;
import dev.sextant.attestation.tpmstructures.TpmReader;

import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/** PCR commands of a {@link TpmClient}: read, extend, event. */
public final class PcrCommands {
    private static final int MAX_EVENT_DATA = 1024;

    private final TpmClient client;

    PcrCommands(TpmClient client) {
        this.client = client;
    }

    /** All 24 PCRs of a bank, index to value. */
    public SortedMap<Integer, byte[]> readAll(int hashAlg) throws TpmException {
        return read(hashAlg, PcrSelection.all(hashAlg).banks().get(0).pcrs());
    }

    /**
     * TPM2_PCR_Read (Part 3, §22.4) in a loop: a TPM returns at most 8 digests per call (TPML_DIGEST),
     * and says which in pcrSelectionOut. If pcrUpdateCounter moves between calls a PCR changed under
     * us, so the read starts over and the result is one consistent snapshot.
     */
    public SortedMap<Integer, byte[]> read(int hashAlg, SortedSet<Integer> wanted) throws TpmException {
        return client.exclusive(() -> {
            for (int attempt = 0; attempt < 5; attempt++) {
                SortedMap<Integer, byte[]> values = readOnce(hashAlg, wanted);
                if (values != null) {
                    return values;
                }
            }
            throw new TpmException(TpmCc.PCR_READ, "PCRs kept changing during the read", null);
        });
    }

    private SortedMap<Integer, byte[]> readOnce(int hashAlg, SortedSet<Integer> wanted) throws TpmException {
        SortedMap<Integer, byte[]> values = new TreeMap<>();
        SortedSet<Integer> missing = new TreeSet<>(wanted);
        Long counter = null;
        while (!missing.isEmpty()) {
            Command c = Command.of(TpmCc.PCR_READ);
            PcrSelection.of(hashAlg, missing).marshal(c.params());
            Chunk chunk = client.send(c, 0, r -> Chunk.parse(r, hashAlg));
            if (counter != null && counter != chunk.updateCounter()) {
                return null;
            }
            counter = chunk.updateCounter();
            SortedSet<Integer> got = new TreeSet<>(chunk.pcrs());
            got.retainAll(missing);
            if (got.isEmpty()) {
                throw new TpmException(TpmCc.PCR_READ, "the TPM returned none of PCRs " + missing
                        + String.format(" in bank 0x%04x", hashAlg), null);
            }
            int k = 0;
            for (int i : chunk.pcrs()) {
                values.put(i, chunk.digests()[k++]);
            }
            missing.removeAll(got);
        }
        return values;
    }

    private record Chunk(long updateCounter, SortedSet<Integer> pcrs, byte[][] digests) {
        static Chunk parse(TpmReader r, int hashAlg) throws TpmFormatException {
            long counter = r.u32("pcrUpdateCounter");
            SortedSet<Integer> pcrs = PcrSelection.readBank(r, hashAlg);
            long count = r.u32("pcrValues.count");
            if (count != pcrs.size()) {
                throw r.fail("pcrValues.count", count + " digests for " + pcrs.size() + " PCRs");
            }
            byte[][] digests = new byte[(int) count][];
            for (int i = 0; i < count; i++) {
                digests[i] = r.sized(64, "pcrValues.digests[" + i + "]");
            }
            return new Chunk(counter, pcrs, digests);
        }
    }

    /** TPM2_PCR_Extend (Part 3, §22.2) of one SHA-256 digest: PCR := SHA-256(PCR || digest). */
    public void extend(int pcr, byte[] sha256Digest) throws TpmException {
        if (sha256Digest.length != 32) {
            throw new IllegalArgumentException("a SHA-256 digest is 32 bytes, got " + sha256Digest.length);
        }
        Command c = Command.of(TpmCc.PCR_EXTEND).authorizedHandle(pcr);
        c.params().u32(1).u16(TpmAlg.SHA256).bytes(sha256Digest);   // TPML_DIGEST_VALUES
        client.send(c, 0, r -> null);
    }

    /**
     * TPM2_PCR_Event (Part 3, §22.3): the TPM hashes {@code data} in every active bank and extends
     * each; returns the SHA-256 digest it extended. Sextant uses it for the node lock on PCR 15.
     */
    public byte[] event(int pcr, byte[] data) throws TpmException {
        if (data.length > MAX_EVENT_DATA) {
            throw new IllegalArgumentException("TPM2B_EVENT holds at most 1024 bytes, got " + data.length);
        }
        Command c = Command.of(TpmCc.PCR_EVENT).authorizedHandle(pcr);
        c.params().sized(data);
        return client.send(c, 0, r -> {
            long count = r.u32("digests.count");
            byte[] sha256 = null;
            for (int i = 0; i < count; i++) {
                int alg = r.u16("digests[" + i + "].hashAlg");
                int size = TpmAlg.digestSize(alg);
                if (size < 0) {
                    throw r.fail("digests[" + i + "].hashAlg", String.format("unknown hash 0x%04x", alg));
                }
                byte[] digest = r.bytes(size, "digests[" + i + "].digest");
                if (alg == TpmAlg.SHA256) {
                    sha256 = digest;
                }
            }
            if (sha256 == null) {
                throw r.fail("digests", "no SHA-256 digest: the SHA-256 bank is not active");
            }
            return sha256;
        });
    }
}
