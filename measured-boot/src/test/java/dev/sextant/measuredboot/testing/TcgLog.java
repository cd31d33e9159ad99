package dev.sextant.measuredboot.testing;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Just enough of a crypto-agile TCG event log reader (PFP §10.2) to check captured fixtures: the
 * Spec ID event's algorithm table, then TCG_PCR_EVENT2 records with their SHA-256 digests. Test
 * code only; the attestation module owns the real, hardened parser.
 */
public final class TcgLog {
    public static final int EV_SEPARATOR = 0x4;
    public static final int EV_EVENT_TAG = 0x6;
    public static final int EV_IPL = 0xD;
    public static final int EV_EFI_BOOT_SERVICES_APPLICATION = 0x80000003;
    public static final int EV_EFI_ACTION = 0x80000007;
    private static final int SHA256 = 0x000B;

    public record Event(int pcr, int type, byte[] sha256, byte[] data) {
    }

    private TcgLog() {
    }

    public static List<Event> parse(byte[] log) {
        ByteBuffer b = ByteBuffer.wrap(log).order(ByteOrder.LITTLE_ENDIAN);
        b.position(8 + 20);
        int specSize = b.getInt();
        int spec = b.position();
        b.position(spec + 24);
        int algs = b.getInt();
        Map<Integer, Integer> sizes = new HashMap<>();
        for (int i = 0; i < algs; i++) {
            sizes.put(b.getShort() & 0xFFFF, b.getShort() & 0xFFFF);
        }
        b.position(spec + specSize);
        List<Event> out = new ArrayList<>();
        while (b.remaining() >= 12) {
            int pcr = b.getInt();
            int type = b.getInt();
            int count = b.getInt();
            byte[] sha256 = null;
            for (int i = 0; i < count; i++) {
                int alg = b.getShort() & 0xFFFF;
                byte[] d = new byte[sizes.get(alg)];
                b.get(d);
                if (alg == SHA256) {
                    sha256 = d;
                }
            }
            byte[] data = new byte[b.getInt()];
            b.get(data);
            out.add(new Event(pcr, type, sha256, data));
        }
        return out;
    }
}
