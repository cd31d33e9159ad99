package dev.sextant.measuredboot.fat;

import dev.sextant.measuredboot.io.MalformedImageException;

import java.io.IOException;
import java.io.OutputStream;
import java.util.BitSet;

/**
 * Follows one cluster chain. Each cluster may be visited once (a revisit is a loop or a
 * cross-link), every cluster number must lie in 2..clusterCount+1, and the walk never outlasts
 * {@code limit} bytes, so the work is bounded by the volume's own size whatever the FAT says.
 */
final class FatChain {
    private FatChain() {
    }

    /**
     * @param exact true for a file: exactly {@code limit} bytes are written and the chain must be
     *              long enough; false for a directory: the chain is read to its end, which must
     *              come within {@code limit} bytes
     */
    static void walk(FatVolume v, long first, long limit, boolean exact, String what, OutputStream out)
            throws MalformedImageException, IOException {
        FatGeometry g = v.geometry();
        long cb = g.clusterBytes();
        long remaining = limit;
        if (exact && limit == 0) {
            return;
        }
        BitSet seen = new BitSet();
        byte[] buf = new byte[(int) cb];
        long cluster = first;
        while (true) {
            if (cluster < 2 || cluster > g.clusterCount() + 1) {
                throw new MalformedImageException("FAT chain of " + what, g.fatOffset(),
                        "cluster " + cluster + " is outside 2.." + (g.clusterCount() + 1));
            }
            if (seen.get((int) cluster)) {
                throw new MalformedImageException("FAT chain of " + what, g.fatOffset(),
                        "cluster " + cluster + " is reached twice (a loop or cross-link)");
            }
            seen.set((int) cluster);
            if (!exact && remaining < cb) {
                throw new MalformedImageException("FAT chain of " + what, g.fatOffset(),
                        "directory is longer than " + limit + " bytes");
            }
            int n = (int) Math.min(cb, remaining);
            v.source().readFully(g.clusterOffset(cluster), buf, 0, n);
            out.write(buf, 0, n);
            remaining -= n;
            if (exact && remaining == 0) {
                return;
            }
            long next = v.next(cluster);
            if (next >= v.endOfChain()) {
                if (exact) {
                    throw new MalformedImageException("FAT chain of " + what, g.fatOffset(),
                            "chain ends after " + (limit - remaining) + " of " + limit + " bytes");
                }
                return;
            }
            cluster = next;
        }
    }
}
