package dev.sextant.nodeboot.rememberdisk;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * What a node's TPM remembers of the state disk it bootstrapped on: the disk's LUKS UUID, the
 * SHA-256 of its cluster ID (what the node lock extends PCR 15 with), its role, a check value of
 * the disk's key, and the digest of the PCR values under which it was written (the writer).
 *
 * <p>The key check value is {@code HMAC-SHA256(HKDF-SHA256(disk key, info "sextant remembered disk"), disk UUID)}:
 * a key offered at boot that does not match is not the key of the disk the node bootstrapped on,
 * even when the host formatted a disk of its own under the same UUID. It reveals nothing of a key
 * of 32 random or HKDF bytes beyond "this guess is wrong" (see disk-crypt's KeyCheckValue, built alike
 * under another label). Nothing in the record is a secret; the TPM's NV index is readable by anyone
 * on the machine, the host included.
 *
 * <p>A record of version 2 also names the cluster's join service role key
 * ({@code JoinServiceRoleKey}, derived from the master secret, which control planes hold and workers do
 * not): the first 20 bytes of SHA-256 of its public key. A rejoin then takes its key only from a
 * service that signs that handshake with this key (docs/security.md, "Rejoin knows its cluster").
 *
 * <p>Encoding, {@value #BYTES} bytes either way, so the NV index keeps its size and a node reads the
 * records of images before version 2:
 * <ul>
 *   <li>version 1: version (1), role (1: control plane, 2: worker), the UUID as 36 lower-case ASCII
 *       characters, cluster ID digest (32), key check (32), writer digest (32);</li>
 *   <li>version 2: version (1), role (1), the UUID's 16 bytes, cluster ID digest (32), key check (32),
 *       writer digest (32), role key digest (20).</li>
 * </ul>
 * A record without a role key digest is written as version 1, byte for byte what images before
 * version 2 wrote.
 */
public final class RememberedDisk {
    static final int BYTES = 1 + 1 + 36 + 32 + 32 + 32;
    private static final int VERSION = 1;
    private static final int VERSION_WITH_ROLE = 2;
    /** The first bytes of SHA-256 of the join service role key's public key: JoinServiceRoleProof.DIGEST_BYTES. */
    public static final int ROLE_KEY_DIGEST_BYTES = 20;
    private static final int CONTROL_PLANE = 1;
    private static final int WORKER = 2;
    private static final Pattern UUID = Pattern.compile("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");
    private static final byte[] LABEL = "sextant remembered disk".getBytes(StandardCharsets.US_ASCII);

    private final String diskUuid;
    private final byte[] clusterIdDigest;
    private final boolean controlPlane;
    private final byte[] keyCheck;
    private final byte[] writerDigest;
    /** Null in a record of version 1. */
    private final byte[] roleKeyDigest;

    private RememberedDisk(String diskUuid, byte[] clusterIdDigest, boolean controlPlane, byte[] keyCheck, byte[] writerDigest,
                           byte[] roleKeyDigest) {
        this.diskUuid = diskUuid;
        this.clusterIdDigest = clusterIdDigest;
        this.controlPlane = controlPlane;
        this.keyCheck = keyCheck;
        this.writerDigest = writerDigest;
        this.roleKeyDigest = roleKeyDigest;
    }

    /** The record of a disk a first membership (or an adoption) is about to use. */
    public static RememberedDisk of(String diskUuid, byte[] clusterId, byte[] diskKey, boolean controlPlane, byte[] writerDigest) {
        String uuid = diskUuid.toLowerCase(Locale.ROOT);
        if (!UUID.matcher(uuid).matches()) {
            throw new IllegalArgumentException("not a LUKS UUID: " + diskUuid);
        }
        if (writerDigest.length != 32) {
            throw new IllegalArgumentException("a writer digest is 32 bytes, got " + writerDigest.length);
        }
        return new RememberedDisk(uuid, sha256(clusterId), controlPlane, keyCheck(diskKey, uuid), writerDigest.clone(), null);
    }

    /**
     * The same record naming the cluster's join service role key by {@code roleKeyDigest} (the first
     * {@value #ROLE_KEY_DIGEST_BYTES} bytes of SHA-256 of its public key): written as version 2.
     */
    public RememberedDisk withJoinServiceRole(byte[] roleKeyDigest) {
        if (roleKeyDigest.length != ROLE_KEY_DIGEST_BYTES) {
            throw new IllegalArgumentException("a role key digest is " + ROLE_KEY_DIGEST_BYTES + " bytes, got "
                    + roleKeyDigest.length);
        }
        return new RememberedDisk(diskUuid, clusterIdDigest, controlPlane, keyCheck, writerDigest, roleKeyDigest.clone());
    }

    /** Reads a record back from the TPM's bytes. */
    static RememberedDisk decode(byte[] bytes) throws RecordUnreadable {
        if (bytes.length != BYTES) {
            throw new RecordUnreadable("the record has " + bytes.length + " bytes, not " + BYTES);
        }
        ByteBuffer in = ByteBuffer.wrap(bytes);
        int version = in.get() & 0xff;
        if (version != VERSION && version != VERSION_WITH_ROLE) {
            throw new RecordUnreadable("the record is of version " + version + ", this image reads versions " + VERSION
                    + " and " + VERSION_WITH_ROLE);
        }
        int role = in.get() & 0xff;
        if (role != CONTROL_PLANE && role != WORKER) {
            throw new RecordUnreadable("the record names role " + role + ", neither control plane (1) nor worker (2)");
        }
        String diskUuid;
        if (version == VERSION) {
            byte[] uuid = new byte[36];
            in.get(uuid);
            diskUuid = new String(uuid, StandardCharsets.US_ASCII);
            if (!UUID.matcher(diskUuid).matches()) {
                throw new RecordUnreadable("the record's disk UUID is not a lower-case UUID");
            }
        } else {
            diskUuid = new java.util.UUID(in.getLong(), in.getLong()).toString();
        }
        byte[] cluster = new byte[32];
        byte[] check = new byte[32];
        byte[] writer = new byte[32];
        in.get(cluster).get(check).get(writer);
        byte[] roleKey = null;
        if (version == VERSION_WITH_ROLE) {
            roleKey = new byte[ROLE_KEY_DIGEST_BYTES];
            in.get(roleKey);
        }
        return new RememberedDisk(diskUuid, cluster, role == CONTROL_PLANE, check, writer, roleKey);
    }

    /** The bytes the TPM's index holds (nothing secret: see the class comment). */
    public byte[] encode() {
        ByteBuffer out = ByteBuffer.allocate(BYTES);
        byte role = (byte) (controlPlane ? CONTROL_PLANE : WORKER);
        if (roleKeyDigest == null) {
            return out.put((byte) VERSION).put(role).put(diskUuid.getBytes(StandardCharsets.US_ASCII))
                    .put(clusterIdDigest).put(keyCheck).put(writerDigest).array();
        }
        java.util.UUID uuid = java.util.UUID.fromString(diskUuid);
        return out.put((byte) VERSION_WITH_ROLE).put(role).putLong(uuid.getMostSignificantBits())
                .putLong(uuid.getLeastSignificantBits()).put(clusterIdDigest).put(keyCheck).put(writerDigest)
                .put(roleKeyDigest).array();
    }

    /** The LUKS UUID of the remembered disk, lower case. */
    public String diskUuid() { return diskUuid; }

    /** True when {@code uuid} names the remembered disk (LUKS UUIDs compare without case). */
    public boolean isDisk(String uuid) {
        return diskUuid.equalsIgnoreCase(uuid);
    }

    /** SHA-256 of the cluster ID: PCR 15 of the cluster's nodes is SHA-256(0^32 || this). */
    public byte[] clusterIdDigest() { return clusterIdDigest.clone(); }

    /** True when {@code clusterId} is the remembered cluster's ID. */
    public boolean isCluster(byte[] clusterId) {
        return MessageDigest.isEqual(sha256(clusterId), clusterIdDigest);
    }

    /**
     * The digest of the cluster's join service role key, which a rejoin demands the service prove;
     * empty in a record of version 1 (written before images recorded it).
     */
    public java.util.Optional<byte[]> joinServiceRoleDigest() {
        return java.util.Optional.ofNullable(roleKeyDigest).map(byte[]::clone);
    }

    /** The role recorded at first bootstrap: only a control plane serves recovery. */
    public boolean controlPlane() { return controlPlane; }

    /** True when {@code key} is the key the remembered disk was bootstrapped with; constant time. */
    public boolean isKey(byte[] key) {
        return MessageDigest.isEqual(keyCheck(key, diskUuid), keyCheck);
    }

    /** SHA-256 of the PCR values the record's write policy demanded: which image wrote it, before its lock. */
    public byte[] writerDigest() { return writerDigest.clone(); }

    boolean sameAs(RememberedDisk other) {
        return Arrays.equals(encode(), other.encode());
    }

    /**
     * True when both name the same disk, cluster, role and key check, whichever image wrote them, and
     * do not name two different role keys. A record naming no role key agrees with one that does: a
     * record of version 2 that re-records one of version 1 adds it ({@link #learningJoinServiceRole}).
     */
    boolean sameDiskAs(RememberedDisk other) {
        return diskUuid.equals(other.diskUuid) && controlPlane == other.controlPlane
                && MessageDigest.isEqual(clusterIdDigest, other.clusterIdDigest) && MessageDigest.isEqual(keyCheck, other.keyCheck)
                && (roleKeyDigest == null || other.roleKeyDigest == null || MessageDigest.isEqual(roleKeyDigest, other.roleKeyDigest));
    }

    /**
     * What a rejoin that learned the cluster's join service role key ({@code roleKeyDigest}) makes of
     * this record: a record of version 1 becomes version 2 naming it; a record that already names a
     * role key is returned unchanged, whatever {@code roleKeyDigest} says. A record's role key is never
     * replaced: a join service that could replace it could re-key the node to itself, and the node's
     * rejoins would from then on demand that service's proof (docs/security.md, "Version-1 records learn
     * the role key").
     */
    public RememberedDisk learningJoinServiceRole(byte[] roleKeyDigest) {
        return this.roleKeyDigest != null ? this : withJoinServiceRole(roleKeyDigest);
    }

    /** True when the image of {@code writer} wrote this record. */
    boolean writtenBy(byte[] writer) {
        return MessageDigest.isEqual(writerDigest, writer);
    }

    /** The same record as written by the image of {@code writer}: what an upgraded node re-records. */
    RememberedDisk rewrittenBy(byte[] writer) {
        if (writer.length != 32) {
            throw new IllegalArgumentException("a writer digest is 32 bytes, got " + writer.length);
        }
        return new RememberedDisk(diskUuid, clusterIdDigest, controlPlane, keyCheck, writer.clone(), roleKeyDigest);
    }

    private static byte[] keyCheck(byte[] key, String uuid) {
        byte[] prk = null;
        byte[] checkKey = null;
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            // HKDF-SHA256 (RFC 5869): extract with the all-zero salt, one block of expand under this label.
            mac.init(new SecretKeySpec(new byte[32], "HmacSHA256"));
            prk = mac.doFinal(key);
            mac.init(new SecretKeySpec(prk, "HmacSHA256"));
            mac.update(LABEL);
            checkKey = mac.doFinal(new byte[] {1});
            mac.init(new SecretKeySpec(checkKey, "HmacSHA256"));
            return mac.doFinal(uuid.getBytes(StandardCharsets.US_ASCII));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is part of every JDK", e);
        } finally {
            if (prk != null) {
                Arrays.fill(prk, (byte) 0);
            }
            if (checkKey != null) {
                Arrays.fill(checkKey, (byte) 0);
            }
        }
    }

    static byte[] sha256(byte[] data) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(data);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }

    /** The UUID, the role and the cluster digest's first bytes; never the key check. */
    @Override
    public String toString() {
        return "disk " + diskUuid + " (" + (controlPlane ? "control plane" : "worker") + " of cluster "
                + HexFormat.of().formatHex(clusterIdDigest, 0, 6) + "…)";
    }

    /** The index holds bytes this image cannot read as a record. */
    static final class RecordUnreadable extends Exception {
        RecordUnreadable(String message) {
            super(message);
        }
    }
}
