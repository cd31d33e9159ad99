package dev.sextant.housekeeping.discovery;

import dev.sextant.keys.member.MemberCredentials;
import dev.sextant.keys.member.MemberKey;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Set;

/**
 * Signs this member's announcements with its member key and attaches its certificate, so every
 * receiver can tell whose records they are without trusting the transport's sender address. Wire
 * form: {@code "SXA1" ‖ u16 certificate length ‖ certificate ‖ records (RecordCodec JSON) ‖
 * Ed25519 signature}, the signature covering a purpose label and everything before it.
 */
final class RecordSigner {
    static final byte[] MAGIC = "SXA1".getBytes(StandardCharsets.US_ASCII);
    /** Domain separation: the member key signs nothing else, but the label keeps it that way. */
    static final byte[] LABEL = "sextant-discovery-announcement-v1\0".getBytes(StandardCharsets.US_ASCII);

    private final RecordCodec codec;
    private final MemberKey key;
    private final byte[] certificate;

    RecordSigner(RecordCodec codec, MemberCredentials credentials) {
        this.codec = codec;
        this.key = new MemberKey(credentials.privateKey());
        this.certificate = credentials.certificate();
    }

    byte[] encode(long version, Set<EndpointRecord> records) {
        return encode(version, records, Map.of());
    }

    /** With named statements beside the records (see {@link RecordCodec}); the signature covers them too. */
    byte[] encode(long version, Set<EndpointRecord> records, Map<String, byte[]> statements) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(MAGIC);
        out.write(certificate.length >>> 8);
        out.write(certificate.length & 0xff);
        out.writeBytes(certificate);
        out.writeBytes(codec.encode(version, records, statements));
        byte[] signed = out.toByteArray();
        out.writeBytes(key.sign(signedBytes(signed, signed.length)));
        return out.toByteArray();
    }

    static byte[] signedBytes(byte[] envelope, int length) {
        byte[] message = new byte[LABEL.length + length];
        System.arraycopy(LABEL, 0, message, 0, LABEL.length);
        System.arraycopy(envelope, 0, message, LABEL.length, length);
        return message;
    }
}
