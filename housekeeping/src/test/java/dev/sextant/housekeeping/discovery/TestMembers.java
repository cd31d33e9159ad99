package dev.sextant.housekeeping.discovery;

import dev.sextant.keys.KeyDerivation;
import dev.sextant.keys.member.DiscoveryCa;
import dev.sextant.keys.member.MemberCredentials;
import dev.sextant.keys.member.MemberKey;
import dev.sextant.keys.member.MemberRole;
import dev.sextant.keys.member.RevocationList;

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;

/**
 * A test cluster's discovery CA (a real one: {@link DiscoveryCa} over a seed), certifying members
 * the way the join service does. {@link #forGroupKey} derives CA and cluster from a group key, so
 * separate processes given the same key share a CA.
 */
public final class TestMembers {
    private final byte[] caSeed;
    private final DiscoveryCa ca;
    private final byte[] clusterId;

    public TestMembers(byte[] caSeed, byte[] clusterId) {
        this.caSeed = caSeed.clone();
        this.ca = new DiscoveryCa(caSeed);
        this.clusterId = clusterId.clone();
    }

    public static TestMembers random() {
        SecureRandom random = new SecureRandom();
        byte[] seed = new byte[32];
        byte[] cluster = new byte[32];
        random.nextBytes(seed);
        random.nextBytes(cluster);
        return new TestMembers(seed, cluster);
    }

    public static TestMembers forGroupKey(byte[] groupKey) {
        return new TestMembers(derive(groupKey, "test-discovery-ca"), derive(groupKey, "test-cluster-id"));
    }

    private static byte[] derive(byte[] key, String info) {
        return KeyDerivation.hkdfSha256(key, new byte[0], info.getBytes(StandardCharsets.UTF_8), 32);
    }

    public MemberCredentials controlPlane(String nodeName) {
        return member(nodeName, MemberRole.CONTROL_PLANE);
    }

    public MemberCredentials worker(String nodeName) {
        return member(nodeName, MemberRole.WORKER);
    }

    public MemberCredentials member(String nodeName, MemberRole role) {
        return member(MemberKey.generate(new SecureRandom()), nodeName, role, Instant.now(), Duration.ofDays(1));
    }

    public MemberCredentials member(MemberKey key, String nodeName, MemberRole role, Instant now, Duration validity) {
        return new MemberCredentials(key.privateKey(),
                ca.certifyMember(key.publicKey(), nodeName, role, clusterId, now, validity), ca.publicKey());
    }

    /** Version {@code version} of this cluster's revocation list, revoking {@code keys}, signed by its CA. */
    public byte[] revocations(long version, byte[]... keys) {
        return ca.signRevocationList(RevocationList.of(clusterId, version, Arrays.asList(keys)));
    }

    /** The key {@code member}'s certificate certifies: what a revocation list names. */
    public static byte[] keyOf(MemberCredentials member) {
        return new MemberKey(member.privateKey()).publicKey();
    }

    public byte[] caSeed() {
        return caSeed.clone();
    }

    public byte[] caPublicKey() {
        return ca.publicKey();
    }

    public byte[] clusterId() {
        return clusterId.clone();
    }
}
