package dev.sextant.joinapi.reattest;

import dev.sextant.etcd.client.Fence;
import dev.sextant.grpcsupport.Refusal;
import dev.sextant.joinapi.nodestate.NodeStateStore;
import dev.sextant.joinapi.nodestate.Revocation;
import dev.sextant.joinapi.nodestate.Revocations;
import dev.sextant.joinapi.nodestate.StoredRevocationList;
import dev.sextant.keys.member.DiscoveryCa;
import dev.sextant.keys.member.RevocationList;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Signs the cluster's revocation list with the discovery CA and writes it to {@code revocations/list}, from
 * where each control plane's bootstrapper hands it to its node's discovery: the list's version is
 * {@code revocations/version} (raised in the same transaction as every {@code revoked/<ak>}), its keys the
 * revoked members' discovery keys ({@code nodes/<name>/member-key}, the name from the revocation). The CA's
 * seed is fetched from the KMS for each list and zeroed once it signed.
 *
 * <p>The list is written only over a lower version: what is stored is verified first with the CA's key (a
 * value someone without the CA wrote counts as no list, and is replaced), then replaced by a compare on its
 * revision, so of two publishers at once (the holder and an operator's Revoke on another join service) the
 * higher version stays. The counter and the list's revision are read first, so a publisher whose list of
 * that version is still in etcd as it left it costs two etcd reads and nothing more; a list deleted or
 * overwritten since is judged and written again.
 */
public final class RevocationListPublisher implements RevocationPublisher {
    private static final Logger LOG = LoggerFactory.getLogger(RevocationListPublisher.class);
    /** Only another publisher writing at the same moment makes a replacement lose; the next round retries anyway. */
    private static final int WRITE_ATTEMPTS = 3;

    /** The discovery key the member certificate of a revoked machine certifies; empty when it joined without one. */
    @FunctionalInterface
    public interface MemberKeys {
        Optional<byte[]> of(Revocation revoked) throws Refusal;
    }

    /** The discovery CA's seed, from the KMS, for one signature: the caller zeroes it. */
    @FunctionalInterface
    public interface CaSeed {
        byte[] get() throws Refusal;
    }

    /** This cluster's ID (not a secret, but derived from one the KMS holds). */
    @FunctionalInterface
    public interface ClusterId {
        byte[] get() throws Refusal;
    }

    private final NodeStateStore store;
    private final MemberKeys memberKeys;
    private final CaSeed caSeed;
    private final ClusterId clusterId;
    private final Object lock = new Object();
    private long published; // the version this publisher last wrote or found written (verified) ...
    private long publishedRevision; // ... and the mod revision of revocations/list then

    public RevocationListPublisher(NodeStateStore store, MemberKeys memberKeys, CaSeed caSeed, ClusterId clusterId) {
        this.store = store;
        this.memberKeys = memberKeys;
        this.caSeed = caSeed;
        this.clusterId = clusterId;
    }

    @Override
    public void publish(Optional<Fence> tenure) {
        try {
            synchronized (lock) {
                long version = store.revocationsVersion();
                if (version == 0) {
                    return;
                }
                if (version <= published
                        && store.revocationList().map(StoredRevocationList::modRevision).orElse(0L) == publishedRevision) {
                    return; // the list of this version is in etcd as this publisher left it
                }
                // A newer version is due, or the list was deleted or overwritten since (whoever can write etcd can):
                // judged again, and written again unless what is there now verifies at this version or higher.
                write(tenure);
            }
        } catch (Refusal r) {
            LOG.warn("the revocation list was not published ({}): {}", r.reason().tag(), r.getMessage());
        } catch (IllegalArgumentException e) {
            // More keys than a list holds (RevocationList.MAX_KEYS), or a cluster ID of the wrong size: said, never thrown
            // into the holder's round or the operator's call, whose revocations stand.
            LOG.error("the revocation list cannot be built: {}", e.getMessage());
        }
    }

    /** Signs the list of every revocation and writes it over a lower version; remembers the version and revision now stored. */
    private void write(Optional<Fence> tenure) throws Refusal {
        byte[] cluster = clusterId.get();
        Signed signed = signed(cluster);
        long version = signed.list().version();
        for (int attempt = 0; attempt < WRITE_ATTEMPTS; attempt++) {
            Optional<StoredRevocationList> stored = store.revocationList();
            long storedVersion = stored.map(s -> verifiedVersion(s, signed.caPublicKey(), cluster)).orElse(0L);
            if (storedVersion >= version) {
                published = storedVersion;
                publishedRevision = stored.get().modRevision();
                return;
            }
            OptionalLong written = store.replaceRevocationList(signed.encoded(), stored.map(StoredRevocationList::modRevision).orElse(0L),
                    tenure);
            if (written.isPresent()) {
                LOG.info("published revocation list version {} ({} key(s)) to revocations/list", version,
                        signed.list().revokedKeys().size());
                published = version;
                publishedRevision = written.getAsLong();
                return;
            }
            if (tenure.isPresent() && store.revocationList().map(StoredRevocationList::modRevision)
                    .equals(stored.map(StoredRevocationList::modRevision))) {
                LOG.info("revocation list version {} not written: the re-attestation tenure ended", version);
                return;
            }
        }
        LOG.warn("revocation list version {} not written: revocations/list kept changing; the next round tries again", version);
    }

    private static long verifiedVersion(StoredRevocationList stored, byte[] caPublicKey, byte[] cluster) {
        try {
            return RevocationList.verify(stored.encoded(), caPublicKey, cluster).version();
        } catch (IllegalArgumentException e) {
            // Only whoever can write etcd could have put it there; no member would apply it. Replaced.
            LOG.warn("revocations/list (revision {}) is not the discovery CA's list for this cluster ({}): replacing it",
                    stored.modRevision(), e.getMessage());
            return 0;
        }
    }

    /** The list of every revocation in etcd, signed; version = {@code revocations/version}. */
    byte[] signed() throws Refusal {
        return signed(clusterId.get()).encoded();
    }

    private record Signed(RevocationList list, byte[] encoded, byte[] caPublicKey) {
    }

    private Signed signed(byte[] cluster) throws Refusal {
        Revocations revocations = store.revocations();
        List<byte[]> keys = new ArrayList<>();
        List<String> unknown = new ArrayList<>();
        for (Map.Entry<String, Revocation> revoked : revocations.byAk().entrySet()) {
            Optional<byte[]> key;
            try {
                key = memberKeys.of(revoked.getValue());
            } catch (IllegalStateException e) {
                LOG.warn("revoked node {}: {}", revoked.getValue().node(), e.getMessage());
                key = Optional.empty();
            }
            if (key.isPresent()) {
                keys.add(key.get());
            } else {
                unknown.add(EvidenceJudge.shortAk(revoked.getKey()));
            }
        }
        if (!unknown.isEmpty()) {
            // A machine that joined without a discovery key has no member certificate to revoke.
            LOG.info("revocation list version {}: no member key for {} revoked AK(s): {}", revocations.version(), unknown.size(), unknown);
        }
        RevocationList list = RevocationList.of(cluster, revocations.version(), keys);
        byte[] seed = caSeed.get();
        try {
            DiscoveryCa ca = new DiscoveryCa(seed);
            return new Signed(list, ca.signRevocationList(list), ca.publicKey());
        } finally {
            Arrays.fill(seed, (byte) 0);
        }
    }
}
