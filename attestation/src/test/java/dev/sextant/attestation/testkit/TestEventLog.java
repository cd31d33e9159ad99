package dev.sextant.attestation.testkit;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.List;

/** Writes a crypto-agile event log (PFP §10.2) with one SHA-256 bank, as firmware would. */
public final class TestEventLog {
    private static final int TPM_ALG_SHA256 = 0x000B;

    private TestEventLog() {}

    public static byte[] write(List<TestEvent> events) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(specIdEvent());
        for (TestEvent e : events) {
            out.writeBytes(le(4, e.pcr()));
            out.writeBytes(le(4, e.type()));
            out.writeBytes(le(4, 1));
            out.writeBytes(le(2, TPM_ALG_SHA256));
            out.writeBytes(sha256(e.data()));
            out.writeBytes(le(4, e.data().length));
            out.writeBytes(e.data());
        }
        return out.toByteArray();
    }

    /** TCG_EfiSpecIDEvent in a TCG_PCClientPCREvent (PFP §10.4.5.1). */
    private static byte[] specIdEvent() {
        ByteArrayOutputStream spec = new ByteArrayOutputStream();
        spec.writeBytes("Spec ID Event03\0".getBytes(StandardCharsets.US_ASCII));
        spec.writeBytes(le(4, 0));
        spec.writeBytes(new byte[]{0, 2, 0, 2});
        spec.writeBytes(le(4, 1));
        spec.writeBytes(le(2, TPM_ALG_SHA256));
        spec.writeBytes(le(2, 32));
        spec.write(0);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(le(4, 0));
        out.writeBytes(le(4, 3));
        out.writeBytes(new byte[20]);
        out.writeBytes(le(4, spec.size()));
        out.writeBytes(spec.toByteArray());
        return out.toByteArray();
    }

    static byte[] le(int size, long v) {
        ByteBuffer b = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(v);
        byte[] out = new byte[size];
        System.arraycopy(b.array(), 0, out, 0, size);
        return out;
    }

    static byte[] sha256(byte[]... parts) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            for (byte[] p : parts) {
                sha.update(p);
            }
            return sha.digest();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
