package dev.sextant.keys.member;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.TreeSet;

/**
 * The discovery CA's statement of which member keys the cluster has revoked: every member applies
 * the highest version it has verified, dropping the records the listed keys signed and refusing
 * their later ones. It lives beside {@link MemberCertificate} because it is the same CA's other
 * statement about member keys, encoded the same way: {@code body ‖ signature}, the body a version
 * label (domain separation from certificates and everything else the CA's key might sign), the
 * cluster ID, the list's version, the count and the keys, parsed strictly so one list has one
 * encoding.
 *
 * <pre>
 * body = u16 length ‖ "sextant-revocation-list-v1" ‖ cluster ID (32) ‖ u64 version ‖ u16 count ‖ (Ed25519 public key, 32)*
 * </pre>
 *
 * <p>The keys are the members' discovery keys (what their certificates certify), sorted as unsigned
 * bytes and unique. They are not checked to be curve points: a listed key is only ever compared
 * with certified keys, and refusing a CA-signed list for a key no certificate can hold would keep
 * the rest of it from applying.
 *
 * @param clusterId   the cluster the list is for (32 bytes): a list of another cluster's CA or for
 *                    another cluster never applies here
 * @param version     a counter the issuer raises with every revocation (1 or more): a member
 *                    keeps the highest, so an older list can never un-revoke
 * @param revokedKeys the revoked members' Ed25519 public keys, at most {@link #MAX_KEYS}
 */
public record RevocationList(byte[] clusterId, long version, List<byte[]> revokedKeys) {
    static final String LABEL = "sextant-revocation-list-v1";
    /**
     * Bounds the list so it travels in one discovery announcement (its base64 under 44 KiB of the
     * announcement's 64 KiB). Revocation is final, but with hour-long member certificates a key
     * whose certificate has expired can leave the list.
     */
    public static final int MAX_KEYS = 1000;
    /** Label, cluster ID, version, count, {@link #MAX_KEYS} keys and the signature. */
    public static final int MAX_BYTES = 2 + LABEL.length() + MemberCertificate.CLUSTER_ID_BYTES + 8 + 2
            + MAX_KEYS * MemberKey.PUBLIC_KEY_BYTES + MemberKey.SIGNATURE_BYTES;

    /** Sorts the keys and drops repeats, so any collection of keys gives the one canonical list. */
    public RevocationList {
        if (clusterId.length != MemberCertificate.CLUSTER_ID_BYTES) {
            throw new IllegalArgumentException("revocation list cluster ID must be " + MemberCertificate.CLUSTER_ID_BYTES
                    + " bytes");
        }
        clusterId = clusterId.clone();
        if (version < 1) {
            throw new IllegalArgumentException("revocation list version must be 1 or more, got " + version);
        }
        TreeSet<byte[]> sorted = new TreeSet<>(Arrays::compareUnsigned);
        for (byte[] key : revokedKeys) {
            if (key.length != MemberKey.PUBLIC_KEY_BYTES) {
                throw new IllegalArgumentException("a revoked key is " + MemberKey.PUBLIC_KEY_BYTES + " bytes, got "
                        + key.length);
            }
            sorted.add(key.clone());
        }
        if (sorted.size() > MAX_KEYS) {
            throw new IllegalArgumentException("revocation list of " + sorted.size() + " keys exceeds " + MAX_KEYS);
        }
        revokedKeys = List.copyOf(sorted);
    }

    public static RevocationList of(byte[] clusterId, long version, Collection<byte[]> revokedKeys) {
        return new RevocationList(clusterId, version, new ArrayList<>(revokedKeys));
    }

    @Override
    public byte[] clusterId() {
        return clusterId.clone();
    }

    @Override
    public List<byte[]> revokedKeys() {
        return revokedKeys.stream().map(byte[]::clone).toList();
    }

    public boolean sameCluster(byte[] otherClusterId) {
        return MessageDigest.isEqual(clusterId, otherClusterId);
    }

    /** True when {@code publicKey} is on the list. */
    public boolean revokes(byte[] publicKey) {
        return revokedKeys.stream().anyMatch(k -> Arrays.equals(k, publicKey));
    }

    /** What the CA signs. */
    byte[] body() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeUTF(LABEL);
            out.write(clusterId);
            out.writeLong(version);
            out.writeShort(revokedKeys.size());
            for (byte[] key : revokedKeys) {
                out.write(key);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    /**
     * The list in {@code encoded} if the CA whose public key is {@code caPublicKey} signed it for the
     * cluster {@code clusterId}; otherwise IllegalArgumentException saying what is wrong.
     */
    public static RevocationList verify(byte[] encoded, byte[] caPublicKey, byte[] clusterId) {
        if (encoded.length > MAX_BYTES || encoded.length <= MemberKey.SIGNATURE_BYTES) {
            throw new IllegalArgumentException("revocation list of " + encoded.length + " bytes is not "
                    + (MemberKey.SIGNATURE_BYTES + 1) + ".." + MAX_BYTES);
        }
        int split = encoded.length - MemberKey.SIGNATURE_BYTES;
        byte[] body = Arrays.copyOfRange(encoded, 0, split);
        if (!MemberKey.verify(caPublicKey, body, Arrays.copyOfRange(encoded, split, encoded.length))) {
            throw new IllegalArgumentException("revocation list is not signed by this cluster's discovery CA");
        }
        RevocationList list = parse(body);
        if (!list.sameCluster(clusterId)) {
            throw new IllegalArgumentException("revocation list version " + list.version() + " is for another cluster");
        }
        return list;
    }

    private static RevocationList parse(byte[] body) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(body))) {
            if (!LABEL.equals(in.readUTF())) {
                throw new IllegalArgumentException("revocation list has an unknown version label");
            }
            byte[] cluster = in.readNBytes(MemberCertificate.CLUSTER_ID_BYTES);
            long version = in.readLong();
            int count = in.readUnsignedShort();
            if (count > MAX_KEYS) {
                throw new IllegalArgumentException("revocation list of " + count + " keys exceeds " + MAX_KEYS);
            }
            if (in.available() != count * MemberKey.PUBLIC_KEY_BYTES) {
                throw new IllegalArgumentException("revocation list counts " + count + " keys but holds "
                        + in.available() + " bytes of keys");
            }
            List<byte[]> keys = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                byte[] key = in.readNBytes(MemberKey.PUBLIC_KEY_BYTES);
                if (i > 0 && Arrays.compareUnsigned(keys.get(i - 1), key) >= 0) {
                    throw new IllegalArgumentException("revocation list keys are not sorted and unique (key " + i + ")");
                }
                keys.add(key);
            }
            RevocationList list = new RevocationList(cluster, version, keys);
            if (!Arrays.equals(list.body(), body)) {
                throw new IllegalArgumentException("revocation list is not in its one canonical encoding");
            }
            return list;
        } catch (IOException e) {
            throw new IllegalArgumentException("revocation list is truncated");
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RevocationList l && Arrays.equals(body(), l.body());
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(body());
    }

    @Override
    public String toString() {
        return "RevocationList[version " + version + ", " + revokedKeys.size() + " key(s)]";
    }
}
