package dev.sextant.keys.member;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.security.MessageDigest;
import java.time.Instant;
import java.util.Arrays;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * What the discovery CA certifies about a member: its discovery public key, node name, role and
 * cluster, for a time. A compact signed statement rather than X.509: members only ever check one
 * issuer's Ed25519 signature over fixed fields, so there is nothing for ASN.1 and path building
 * to do. The encoding is {@code body ‖ signature}, where the body starts with a version label
 * (domain separation: no other signed thing of the cluster's begins with it) followed by
 * fixed-size and length-prefixed fields; parsing is strict, so one statement has one encoding.
 *
 * @param publicKey  the member's Ed25519 public key (32 bytes)
 * @param nodeName   the node name the join service bound to the member's machine
 * @param role       what the member may publish
 * @param clusterId  the cluster (32 bytes, what PCR 15 is marked with)
 */
public record MemberCertificate(byte[] publicKey, String nodeName, MemberRole role, byte[] clusterId,
                                Instant notBefore, Instant notAfter) {
    static final String LABEL = "sextant-member-certificate-v1";
    public static final int CLUSTER_ID_BYTES = 32;
    /** Generous: label, key, a 63-character name, cluster ID, times and signature are under 250. */
    public static final int MAX_BYTES = 512;
    private static final Pattern NODE_NAME = Pattern.compile("[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?");

    public MemberCertificate {
        Objects.requireNonNull(role, "role");
        publicKey = MemberKey.checkPublicKey(publicKey);
        if (!NODE_NAME.matcher(nodeName).matches()) {
            throw new IllegalArgumentException("member certificate node name '" + nodeName + "' is not an RFC 1123 label");
        }
        if (clusterId.length != CLUSTER_ID_BYTES) {
            throw new IllegalArgumentException("member certificate cluster ID must be " + CLUSTER_ID_BYTES + " bytes");
        }
        clusterId = clusterId.clone();
        if (!notAfter.isAfter(notBefore)) {
            throw new IllegalArgumentException("member certificate validity ends before it starts");
        }
        notBefore = Instant.ofEpochSecond(notBefore.getEpochSecond());
        notAfter = Instant.ofEpochSecond(notAfter.getEpochSecond());
    }

    @Override
    public byte[] publicKey() {
        return publicKey.clone();
    }

    @Override
    public byte[] clusterId() {
        return clusterId.clone();
    }

    public boolean sameCluster(byte[] otherClusterId) {
        return MessageDigest.isEqual(clusterId, otherClusterId);
    }

    public boolean validAt(Instant now) {
        return !now.isBefore(notBefore) && now.isBefore(notAfter);
    }

    /** What the CA signs. */
    byte[] body() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeUTF(LABEL);
            out.write(publicKey);
            out.writeUTF(nodeName);
            out.writeByte(role.code());
            out.write(clusterId);
            out.writeLong(notBefore.getEpochSecond());
            out.writeLong(notAfter.getEpochSecond());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    /**
     * The statement in {@code encoded} if the CA whose public key is {@code caPublicKey} signed it
     * and it is valid at {@code now}; otherwise IllegalArgumentException saying what is wrong.
     */
    public static MemberCertificate verify(byte[] encoded, byte[] caPublicKey, Instant now) {
        MemberCertificate c = signedBy(encoded, caPublicKey);
        if (!c.validAt(now)) {
            throw new IllegalArgumentException("member certificate of " + c.nodeName() + " is valid only from "
                    + c.notBefore() + " to " + c.notAfter());
        }
        return c;
    }

    /**
     * The statement in {@code encoded} if the CA whose public key is {@code caPublicKey} signed it, whatever
     * its validity; otherwise IllegalArgumentException saying what is wrong. For the member's own certificate
     * (an expired one still says who the member is while it waits for a renewal) and for a renewal's
     * comparison with it; a receiver of records uses {@link #verify}.
     */
    public static MemberCertificate signedBy(byte[] encoded, byte[] caPublicKey) {
        if (encoded.length > MAX_BYTES || encoded.length <= MemberKey.SIGNATURE_BYTES) {
            throw new IllegalArgumentException("member certificate of " + encoded.length + " bytes is not 65.."
                    + MAX_BYTES);
        }
        int split = encoded.length - MemberKey.SIGNATURE_BYTES;
        byte[] body = Arrays.copyOfRange(encoded, 0, split);
        if (!MemberKey.verify(caPublicKey, body, Arrays.copyOfRange(encoded, split, encoded.length))) {
            throw new IllegalArgumentException("member certificate is not signed by this cluster's discovery CA");
        }
        return parse(body);
    }

    /** Whether {@code other} certifies the same key, node name, role and cluster (its validity aside). */
    public boolean sameSubject(MemberCertificate other) {
        return MessageDigest.isEqual(publicKey, other.publicKey) && nodeName.equals(other.nodeName) && role == other.role
                && MessageDigest.isEqual(clusterId, other.clusterId);
    }

    private static MemberCertificate parse(byte[] body) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(body))) {
            if (!LABEL.equals(in.readUTF())) {
                throw new IllegalArgumentException("member certificate has an unknown version label");
            }
            byte[] key = in.readNBytes(MemberKey.PUBLIC_KEY_BYTES);
            String name = in.readUTF();
            MemberRole role = MemberRole.ofCode(in.readUnsignedByte());
            byte[] cluster = in.readNBytes(CLUSTER_ID_BYTES);
            Instant from = Instant.ofEpochSecond(in.readLong());
            Instant to = Instant.ofEpochSecond(in.readLong());
            if (in.available() != 0) {
                throw new IllegalArgumentException("member certificate has trailing bytes");
            }
            MemberCertificate c = new MemberCertificate(key, name, role, cluster, from, to);
            if (!Arrays.equals(c.body(), body)) {
                throw new IllegalArgumentException("member certificate is not in its one canonical encoding");
            }
            return c;
        } catch (IOException e) {
            throw new IllegalArgumentException("member certificate is truncated");
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof MemberCertificate c && Arrays.equals(body(), c.body());
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(body());
    }

    @Override
    public String toString() {
        return "MemberCertificate[" + nodeName + ", " + role + ", " + notBefore + ".." + notAfter + "]";
    }
}
