package dev.sextant.measuredboot.testing;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.List;

/** Builds minimal PE32+ images with chosen sections, for golden tests that need no host tool. */
public final class TestPe {
    private static final int FILE_ALIGN = 0x200;

    /** A section: its name, file contents and VirtualSize (may exceed the contents: the rest is zero-filled). */
    public record Sec(String name, byte[] data, int virtualSize) {
        public static Sec of(String name, String text) {
            byte[] b = text.getBytes(StandardCharsets.UTF_8);
            return new Sec(name, b, b.length);
        }
    }

    private TestPe() {
    }

    public static String sdmagic(int stubMajor) {
        return "#### LoaderInfo: systemd-stub " + stubMajor + ".1-test ####";
    }

    public static byte[] build(List<Sec> sections) {
        int peOff = 0x80;
        int optSize = 112 + 16 * 8;
        int headers = align(peOff + 24 + optSize + sections.size() * 40);
        int total = headers;
        for (Sec s : sections) {
            total += align(s.data().length);
        }
        ByteBuffer b = ByteBuffer.allocate(total).order(ByteOrder.LITTLE_ENDIAN);
        b.putShort(0, (short) 0x5A4D).putInt(0x3C, peOff);
        b.putInt(peOff, 0x00004550).putShort(peOff + 4, (short) 0x8664).putShort(peOff + 6, (short) sections.size())
                .putShort(peOff + 20, (short) optSize).putShort(peOff + 22, (short) 0x2022);
        int opt = peOff + 24;
        b.putShort(opt, (short) 0x20b).putInt(opt + 32, 0x1000).putInt(opt + 36, FILE_ALIGN)
                .putInt(opt + 60, headers).putShort(opt + 68, (short) 10).putInt(opt + 108, 16);
        int table = opt + optSize;
        int raw = headers;
        int va = 0x1000;
        for (int i = 0; i < sections.size(); i++) {
            Sec s = sections.get(i);
            int at = table + i * 40;
            byte[] name = s.name().getBytes(StandardCharsets.US_ASCII);
            b.put(at, name, 0, Math.min(8, name.length));
            b.putInt(at + 8, s.virtualSize()).putInt(at + 12, va).putInt(at + 16, align(s.data().length))
                    .putInt(at + 20, raw).putInt(at + 36, 0x40000040);
            b.put(raw, s.data());
            raw += align(s.data().length);
            va += align(Math.max(s.virtualSize(), s.data().length) + 0xFFF) & ~0xFFF;
        }
        b.putInt(opt + 56, va);
        return b.array();
    }

    private static int align(int n) {
        return (n + FILE_ALIGN - 1) / FILE_ALIGN * FILE_ALIGN;
    }
}
