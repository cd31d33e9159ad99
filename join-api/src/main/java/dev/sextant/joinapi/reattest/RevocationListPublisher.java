package dev.sextant.joinapi.reattest;

import dev.sextant.etcd.duty.Holding;
import dev.sextant.grpcsupport.Refusal;
import dev.sextant.joinapi.nodestate.NodeStateStore;
import dev.sextant.joinapi.nodestate.Revocations;
import dev.sextant.keys.member.DiscoveryCa;
import dev.sextant.keys.member.RevocationList;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Signs the cluster's revocation list with the discovery CA and hands it to discovery: the list's
 * version is {@code revocations/version} (raised in the same transaction as every {@code revoked/<ak>}),
 * its keys the revoked members' discovery keys. The CA's seed is fetched from the KMS for each list and
 * zeroed once it signed. Two parts come from outside, since the join service has neither yet
 * ({@link UnwiredRevocationPublisher}): where a revoked AK's member key is kept, and the hand-off to
 * the node's {@code EndpointDiscovery.publishRevocations}.
 */
final class RevocationListPublisher implements RevocationPublisher {
    private static final Logger LOG = LoggerFactory.getLogger(RevocationListPublisher.class);

    /** The discovery key a machine's member certificate certifies, by its AK (hex). */
    @FunctionalInterface
    interface MemberKeys {
        Optional<byte[]> of(String ak) throws Refusal;
    }

    /** The discovery CA's seed, from the KMS, for one signature. */
    @FunctionalInterface
    interface CaSeed {
        byte[] get() throws Refusal;
    }

    private final NodeStateStore store;
    private final MemberKeys memberKeys;
    private final CaSeed caSeed;
    private final byte[] clusterId;
    private final Consumer<byte[]> discovery;

    RevocationListPublisher(NodeStateStore store, MemberKeys memberKeys, CaSeed caSeed, byte[] clusterId, Consumer<byte[]> discovery) {
        this.store = store;
        this.memberKeys = memberKeys;
        this.caSeed = caSeed;
        this.clusterId = clusterId.clone();
        this.discovery = discovery;
    }

    @Override
    public void publish(Holding tenure) {
        try {
            discovery.accept(signed());
        } catch (Refusal r) {
            LOG.warn("the revocation list was not published ({}): {}", r.reason().tag(), r.getMessage());
        }
    }

    /** The list of every revocation in etcd, signed; version = {@code revocations/version}. */
    byte[] signed() throws Refusal {
        Revocations revocations = store.revocations();
        List<byte[]> keys = new ArrayList<>();
        List<String> unknown = new ArrayList<>();
        for (String ak : revocations.byAk().keySet()) {
            Optional<byte[]> key = memberKeys.of(ak);
            if (key.isPresent()) {
                keys.add(key.get());
            } else {
                unknown.add(EvidenceJudge.shortAk(ak));
            }
        }
        if (!unknown.isEmpty()) {
            // A machine that joined without a discovery key has no member certificate to revoke.
            LOG.info("revocation list version {}: no member key for {} revoked AK(s): {}", revocations.version(), unknown.size(), unknown);
        }
        RevocationList list = RevocationList.of(clusterId, revocations.version(), keys);
        byte[] seed = caSeed.get();
        try {
            return new DiscoveryCa(seed).signRevocationList(list);
        } finally {
            Arrays.fill(seed, (byte) 0);
        }
    }
}
