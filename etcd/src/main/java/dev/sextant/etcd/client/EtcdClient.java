package dev.sextant.etcd.client;

import com.google.protobuf.ByteString;
import dev.sextant.etcd.api.ClusterGrpc;
import dev.sextant.etcd.api.EtcdKv.KeyValue;
import dev.sextant.etcd.api.EtcdRpc.Compare;
import dev.sextant.etcd.api.EtcdRpc.LeaseGrantRequest;
import dev.sextant.etcd.api.EtcdRpc.LeaseGrantResponse;
import dev.sextant.etcd.api.EtcdRpc.LeaseRevokeRequest;
import dev.sextant.etcd.api.EtcdRpc.LeaseTimeToLiveRequest;
import dev.sextant.etcd.api.EtcdRpc.Member;
import dev.sextant.etcd.api.EtcdRpc.MemberAddRequest;
import dev.sextant.etcd.api.EtcdRpc.MemberListRequest;
import dev.sextant.etcd.api.EtcdRpc.MemberPromoteRequest;
import dev.sextant.etcd.api.EtcdRpc.MemberRemoveRequest;
import dev.sextant.etcd.api.EtcdRpc.PutRequest;
import dev.sextant.etcd.api.EtcdRpc.RangeRequest;
import dev.sextant.etcd.api.EtcdRpc.RangeResponse;
import dev.sextant.etcd.api.EtcdRpc.RequestOp;
import dev.sextant.etcd.api.EtcdRpc.ResponseOp;
import dev.sextant.etcd.api.EtcdRpc.StatusRequest;
import dev.sextant.etcd.api.EtcdRpc.StatusResponse;
import dev.sextant.etcd.api.EtcdRpc.TxnRequest;
import dev.sextant.etcd.api.EtcdRpc.TxnResponse;
import dev.sextant.etcd.api.KVGrpc;
import dev.sextant.etcd.api.LeaseGrpc;
import dev.sextant.etcd.api.MaintenanceGrpc;
import io.grpc.Channel;
import io.grpc.Status;
import java.time.Duration;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The cluster store's client: the few etcd v3 calls Sextant makes, over mutual TLS to a list of
 * members, going on with the next member when one is down ({@link EndpointChannels}). Keys and values
 * are UTF-8 text (docs/cluster-store.md). Every call has a deadline ({@link EtcdClientConfig#callTimeout()}
 * per attempt) and fails with an {@link EtcdException} naming the endpoints and etcd's answer.
 *
 * <p>A call whose answer was lost (a deadline, a member stopping mid-call) may still have been applied,
 * and is tried again at the next member: writes here are safe to repeat (a put of the same value; a
 * create-all finds its own values and reports them as present; adding a learner whose peer URL exists
 * is refused by etcd, see {@code EtcdMembership}). Reads are linearizable.
 *
 * <p>The TLS files are read once, when the client is made: open a new client after renewing its
 * certificate.
 */
public final class EtcdClient implements AutoCloseable {
    private final EndpointChannels channels;

    public EtcdClient(EtcdClientConfig config) {
        this.channels = new EndpointChannels(config);
    }

    /** Calls made so far, each attempt at each endpoint counted once: what a benchmark divides by. */
    public long roundTrips() {
        return channels.roundTrips();
    }

    public Optional<String> get(String key) {
        RangeResponse response = channels.call("get", c -> kv(c).range(RangeRequest.newBuilder().setKey(bytes(key)).build()));
        return response.getKvsCount() == 0 ? Optional.empty() : Optional.of(text(response.getKvs(0).getValue()));
    }

    /** The value at {@code key} with its modification revision; empty when the key is absent. */
    public Optional<Versioned> getVersioned(String key) {
        RangeResponse response = channels.call("get", c -> kv(c).range(RangeRequest.newBuilder().setKey(bytes(key)).build()));
        if (response.getKvsCount() == 0) {
            return Optional.empty();
        }
        KeyValue kv = response.getKvs(0);
        return Optional.of(new Versioned(text(kv.getValue()), kv.getModRevision()));
    }

    /**
     * Several keys with their modification revisions, read at one revision (a transaction of reads only, one
     * round trip): what a caller that decides on several keys at once must see, never one key before another's
     * write and the other after it. Absent keys are left out.
     */
    public Map<String, Versioned> getAllVersioned(List<String> keys) {
        if (keys.isEmpty()) {
            throw new IllegalArgumentException("a read needs at least one key");
        }
        List<String> reads = List.copyOf(keys);
        TxnRequest.Builder txn = TxnRequest.newBuilder();
        reads.forEach(key -> txn.addSuccess(RequestOp.newBuilder().setRequestRange(RangeRequest.newBuilder().setKey(bytes(key)))));
        TxnResponse response = channels.call("read of " + reads.size() + " keys", c -> kv(c).txn(txn.build()));
        Map<String, Versioned> values = new LinkedHashMap<>();
        for (int i = 0; i < reads.size(); i++) {
            RangeResponse range = response.getResponses(i).getResponseRange();
            if (range.getKvsCount() > 0) {
                KeyValue kv = range.getKvs(0);
                values.put(reads.get(i), new Versioned(text(kv.getValue()), kv.getModRevision()));
            }
        }
        return values;
    }

    /**
     * Writes {@code value} at {@code key} only if the key was last modified at {@code modRevision} (0: only if
     * it is absent), in one transaction: a compare-and-swap. False when another writer came first.
     */
    public boolean putIfUnmodified(String key, String value, long modRevision) {
        TxnRequest txn = TxnRequest.newBuilder()
                .addCompare(Compare.newBuilder().setKey(bytes(key)).setTarget(Compare.CompareTarget.MOD)
                        .setResult(Compare.CompareResult.EQUAL).setModRevision(modRevision))
                .addSuccess(RequestOp.newBuilder().setRequestPut(PutRequest.newBuilder().setKey(bytes(key)).setValue(bytes(value))))
                .build();
        return channels.call("compare-and-put", c -> kv(c).txn(txn)).getSucceeded();
    }

    /** Writes {@code value} at {@code key}; returns the store's revision after the write. */
    public long put(String key, String value) {
        return channels.call("put", c -> kv(c).put(PutRequest.newBuilder().setKey(bytes(key)).setValue(bytes(value)).build()))
                .getHeader().getRevision();
    }

    /** {@link #createAll(Map, Optional)} without a prefix guard. */
    public CreateAllResult createAll(Map<String, String> entries) {
        return createAll(entries, Optional.empty());
    }

    /**
     * Writes every entry if every key is absent and, with a guard, no key under the guard's prefix was
     * modified after its revision; otherwise writes nothing and reads, in the same transaction, the
     * current value of every requested key present (and the guarded keys modified since). One round trip.
     */
    public CreateAllResult createAll(Map<String, String> entries, Optional<PrefixUnchangedSince> guard) {
        if (entries.isEmpty()) {
            throw new IllegalArgumentException("a create-all transaction needs at least one key");
        }
        List<String> keys = List.copyOf(entries.keySet());
        TxnRequest.Builder txn = TxnRequest.newBuilder();
        for (String key : keys) {
            txn.addCompare(Compare.newBuilder().setKey(bytes(key)).setTarget(Compare.CompareTarget.CREATE)
                    .setResult(Compare.CompareResult.EQUAL).setCreateRevision(0));
            txn.addSuccess(RequestOp.newBuilder().setRequestPut(PutRequest.newBuilder().setKey(bytes(key)).setValue(bytes(entries.get(key)))));
            txn.addFailure(RequestOp.newBuilder().setRequestRange(RangeRequest.newBuilder().setKey(bytes(key))));
        }
        guard.ifPresent(g -> {
            ByteString prefix = bytes(g.prefix());
            ByteString end = prefixEnd(prefix);
            txn.addCompare(Compare.newBuilder().setKey(prefix).setRangeEnd(end).setTarget(Compare.CompareTarget.MOD)
                    .setResult(Compare.CompareResult.LESS).setModRevision(g.revision() + 1));
            // A count would ignore the revision filter (etcd applies it after counting): list the keys.
            txn.addFailure(RequestOp.newBuilder().setRequestRange(RangeRequest.newBuilder().setKey(prefix).setRangeEnd(end)
                    .setKeysOnly(true).setMinModRevision(g.revision() + 1)));
        });
        String operation = "create-all transaction of " + keys.size() + " keys" + (guard.isPresent() ? " with a prefix guard" : "");
        TxnResponse response = channels.call(operation, c -> kv(c).txn(txn.build()));
        if (response.getSucceeded()) {
            return new CreateAllResult.Created(response.getHeader().getRevision());
        }
        Map<String, String> present = new LinkedHashMap<>();
        for (int i = 0; i < keys.size(); i++) {
            RangeResponse range = response.getResponses(i).getResponseRange();
            if (range.getKvsCount() > 0) {
                present.put(keys.get(i), text(range.getKvs(0).getValue()));
            }
        }
        List<String> changed = new ArrayList<>();
        if (guard.isPresent()) {
            ResponseOp last = response.getResponses(keys.size());
            for (KeyValue kv : last.getResponseRange().getKvsList()) {
                changed.add(text(kv.getKey()));
            }
        }
        return new CreateAllResult.Refused(present, changed);
    }

    /**
     * Grants a lease of {@code ttl} (whole seconds, at least one); etcd may grant more (its minimum TTL).
     * A grant whose answer was lost and that is tried at the next member may leave a second lease behind:
     * nothing is bound to it, and it expires after its TTL.
     */
    public Lease grantLease(Duration ttl) {
        long seconds = wholeSeconds(ttl);
        LeaseGrantResponse response = channels.call("lease grant", c -> lease(c)
                .leaseGrant(LeaseGrantRequest.newBuilder().setTTL(seconds).build()));
        // etcd 3.4 refuses a grant with a gRPC status (handled like any call's); its "error" field stays empty.
        return new Lease(response.getID(), response.getTTL());
    }

    /**
     * Keeps {@code leaseId} alive over one LeaseKeepAlive stream, renewed when the caller asks
     * ({@link LeaseKeepAlive#renew}). Opens no connection until the first renewal.
     */
    public LeaseKeepAlive keepAlive(long leaseId) {
        return new LeaseKeepAlive(channels, leaseId);
    }

    /**
     * Revokes {@code leaseId}: etcd deletes every key bound to it at once. False when etcd knows no such
     * lease (it expired, was revoked already, or a first attempt whose answer was lost revoked it).
     */
    public boolean revokeLease(long leaseId) {
        try {
            channels.call("lease revoke", c -> lease(c).leaseRevoke(LeaseRevokeRequest.newBuilder().setID(leaseId).build()));
            return true;
        } catch (EtcdException e) {
            if (e.code() == Status.Code.NOT_FOUND) {
                return false;
            }
            throw e;
        }
    }

    /**
     * What is left of {@code leaseId}'s time, as etcd's leader counts it, in whole seconds rounded down
     * (the lease expires in under one more second); empty when etcd knows no such lease.
     */
    public Optional<Long> leaseTimeToLive(long leaseId) {
        long ttl = channels.call("lease time-to-live", c -> lease(c)
                .leaseTimeToLive(LeaseTimeToLiveRequest.newBuilder().setID(leaseId).build())).getTTL();
        return ttl < 0 ? Optional.empty() : Optional.of(ttl);
    }

    /**
     * Writes {@code value} at {@code key} bound to {@code leaseId} (0: no lease) only if the key is absent
     * ({@code create_revision == 0}); otherwise writes nothing and reads, in the same transaction, the
     * present value, its lease and its create revision. One round trip. A call retried after a lost answer
     * finds its own value and lease as present.
     */
    public CreateIfAbsentResult createIfAbsent(String key, String value, long leaseId) {
        TxnRequest txn = TxnRequest.newBuilder()
                .addCompare(Compare.newBuilder().setKey(bytes(key)).setTarget(Compare.CompareTarget.CREATE)
                        .setResult(Compare.CompareResult.EQUAL).setCreateRevision(0))
                .addSuccess(RequestOp.newBuilder().setRequestPut(PutRequest.newBuilder()
                        .setKey(bytes(key)).setValue(bytes(value)).setLease(leaseId)))
                .addFailure(RequestOp.newBuilder().setRequestRange(RangeRequest.newBuilder().setKey(bytes(key))))
                .build();
        TxnResponse response = channels.call("create-if-absent transaction" + (leaseId == 0 ? "" : " under a lease"),
                c -> kv(c).txn(txn));
        if (response.getSucceeded()) {
            return new CreateIfAbsentResult.Created(response.getHeader().getRevision());
        }
        RangeResponse range = response.getResponses(0).getResponseRange();
        if (range.getKvsCount() == 0) {
            // The compare found the key and the read, in the same transaction, did not: etcd broke its word.
            throw new IllegalStateException("etcd refused a create-if-absent for a key it then did not find");
        }
        KeyValue kv = range.getKvs(0);
        return new CreateIfAbsentResult.Present(text(kv.getValue()), kv.getLease(), kv.getCreateRevision(),
                response.getHeader().getRevision());
    }

    /**
     * Writes every entry in one transaction only if the fence holds (its key exists, created at its
     * revision: the writer's tenure still lasts) and each key of {@code unmodifiedSince} was last modified at
     * its revision (0: is absent); otherwise writes nothing. False when a condition failed. However long the
     * writer was paused, a write fenced by a tenure that ended is refused by etcd itself. (A write whose
     * answer was lost is tried again at the next member: with {@code unmodifiedSince}, that second attempt
     * may find the first one's own changes and answer false; read back before concluding.)
     */
    public boolean fencedPutAll(Fence fence, Map<String, String> entries, Map<String, Long> unmodifiedSince) {
        if (entries.isEmpty()) {
            throw new IllegalArgumentException("a fenced write needs at least one key");
        }
        TxnRequest.Builder txn = TxnRequest.newBuilder()
                .addCompare(Compare.newBuilder().setKey(bytes(fence.key())).setTarget(Compare.CompareTarget.CREATE)
                        .setResult(Compare.CompareResult.EQUAL).setCreateRevision(fence.createRevision()));
        unmodifiedSince.forEach((key, revision) -> txn.addCompare(Compare.newBuilder().setKey(bytes(key))
                .setTarget(Compare.CompareTarget.MOD).setResult(Compare.CompareResult.EQUAL).setModRevision(revision)));
        entries.forEach((key, value) -> txn.addSuccess(RequestOp.newBuilder()
                .setRequestPut(PutRequest.newBuilder().setKey(bytes(key)).setValue(bytes(value)))));
        return channels.call("fenced write of " + entries.size() + " keys", c -> kv(c).txn(txn.build())).getSucceeded();
    }

    /**
     * Writes every entry in one transaction only if the fence holds (when given) and each key of
     * {@code unmodifiedSince} was last modified at its revision (0: is absent); and reads the keys of
     * {@code read} in the same transaction, whatever the outcome: after the write when it was made, as they
     * stood when it was refused (so a refused caller learns why without another round trip). One round trip.
     * A write retried after a lost answer may find its own first attempt and be refused: the read shows it.
     */
    public ConditionalWrite putAllIf(Optional<Fence> fence, Map<String, Long> unmodifiedSince, Map<String, String> entries,
                                     List<String> read) {
        if (entries.isEmpty()) {
            throw new IllegalArgumentException("a conditional write needs at least one key");
        }
        TxnRequest.Builder txn = TxnRequest.newBuilder();
        fence.ifPresent(f -> txn.addCompare(Compare.newBuilder().setKey(bytes(f.key())).setTarget(Compare.CompareTarget.CREATE)
                .setResult(Compare.CompareResult.EQUAL).setCreateRevision(f.createRevision())));
        unmodifiedSince.forEach((key, revision) -> txn.addCompare(Compare.newBuilder().setKey(bytes(key))
                .setTarget(Compare.CompareTarget.MOD).setResult(Compare.CompareResult.EQUAL).setModRevision(revision)));
        entries.forEach((key, value) -> txn.addSuccess(RequestOp.newBuilder()
                .setRequestPut(PutRequest.newBuilder().setKey(bytes(key)).setValue(bytes(value)))));
        List<String> reads = List.copyOf(read);
        for (String key : reads) {
            RequestOp range = RequestOp.newBuilder().setRequestRange(RangeRequest.newBuilder().setKey(bytes(key))).build();
            txn.addSuccess(range);
            txn.addFailure(range);
        }
        TxnResponse response = channels.call("conditional write of " + entries.size() + " keys" + (fence.isPresent() ? ", fenced" : ""),
                c -> kv(c).txn(txn.build()));
        int first = response.getSucceeded() ? entries.size() : 0;
        Map<String, Versioned> values = new LinkedHashMap<>();
        for (int i = 0; i < reads.size(); i++) {
            RangeResponse range = response.getResponses(first + i).getResponseRange();
            if (range.getKvsCount() > 0) {
                KeyValue kv = range.getKvs(0);
                values.put(reads.get(i), new Versioned(text(kv.getValue()), kv.getModRevision()));
            }
        }
        return new ConditionalWrite(response.getSucceeded(), response.getHeader().getRevision(), values);
    }

    /**
     * Every key under each of {@code prefixes} with its value and modification revision, all read at one
     * revision (a transaction of range reads only, one round trip): a caller that joins several prefixes sees
     * none of them before a write and another after it. Keys in the order of the prefixes, each prefix's in key
     * order (as bytes); a key under two of the prefixes appears once.
     */
    public Map<String, Versioned> getPrefixesVersioned(List<String> prefixes) {
        if (prefixes.isEmpty()) {
            throw new IllegalArgumentException("a read needs at least one prefix");
        }
        TxnRequest.Builder txn = TxnRequest.newBuilder();
        for (String prefix : prefixes) {
            ByteString start = bytes(prefix);
            txn.addSuccess(RequestOp.newBuilder().setRequestRange(RangeRequest.newBuilder().setKey(start).setRangeEnd(prefixEnd(start))));
        }
        TxnResponse response = channels.call("read of " + prefixes.size() + " prefixes", c -> kv(c).txn(txn.build()));
        Map<String, Versioned> values = new LinkedHashMap<>();
        for (int i = 0; i < prefixes.size(); i++) {
            for (KeyValue kv : response.getResponses(i).getResponseRange().getKvsList()) {
                values.putIfAbsent(text(kv.getKey()), new Versioned(text(kv.getValue()), kv.getModRevision()));
            }
        }
        return values;
    }

    /** Every key under {@code prefix} with its value, in key order (as bytes), read at one revision. */
    public Map<String, String> getPrefix(String prefix) {
        ByteString start = bytes(prefix);
        RangeResponse response = channels.call("range", c -> kv(c).range(RangeRequest.newBuilder()
                .setKey(start).setRangeEnd(prefixEnd(start)).build()));
        Map<String, String> values = new LinkedHashMap<>();
        for (KeyValue kv : response.getKvsList()) {
            values.put(text(kv.getKey()), text(kv.getValue()));
        }
        return values;
    }

    /**
     * Watches {@code key} for its deletion from {@code fromRevision} on (a deletion at or after it is
     * reported, also one that happened before the watch was created); {@code onDeleted} runs once, on a
     * gRPC thread, and the watch ends. Best effort: a watch whose stream fails just ends
     * ({@link KeyDeletionWatch#active()} turns false) without trying another endpoint, so its user must not
     * depend on it alone (the duty holder polls too).
     */
    public KeyDeletionWatch watchDeletion(String key, long fromRevision, Runnable onDeleted) {
        return new KeyDeletionWatch(channels, bytes(key), fromRevision, onDeleted);
    }

    /** The number of keys under {@code prefix} and the revision it was counted at; the keys are not read. */
    public PrefixCount count(String prefix) {
        ByteString start = bytes(prefix);
        RangeResponse response = channels.call("count", c -> kv(c).range(RangeRequest.newBuilder()
                .setKey(start).setRangeEnd(prefixEnd(start)).setCountOnly(true).build()));
        return new PrefixCount(response.getCount(), response.getHeader().getRevision());
    }

    public List<EtcdMember> members() {
        return members(channels.call("member list", c -> cluster(c).memberList(MemberListRequest.getDefaultInstance())).getMembersList());
    }

    /** Adds a non-voting member with these peer URLs; it has no name until it starts. */
    public EtcdMember addLearner(List<String> peerUrls) {
        Member added = channels.call("member add (learner)", c -> cluster(c)
                .memberAdd(MemberAddRequest.newBuilder().addAllPeerURLs(peerUrls).setIsLearner(true).build())).getMember();
        return member(added);
    }

    /**
     * Makes a learner a voting member. etcd refuses (FAILED_PRECONDITION, "can only promote a learner
     * member which is in sync with leader") until the learner has caught up.
     */
    public List<EtcdMember> promote(long memberId) {
        return members(channels.call("member promote", c -> cluster(c)
                .memberPromote(MemberPromoteRequest.newBuilder().setID(memberId).build())).getMembersList());
    }

    public List<EtcdMember> remove(long memberId) {
        return members(channels.call("member remove", c -> cluster(c)
                .memberRemove(MemberRemoveRequest.newBuilder().setID(memberId).build())).getMembersList());
    }

    /** The status of the member at {@code endpoint} (any endpoint, not only the configured ones), asked there alone. */
    public EndpointStatus status(String endpoint) {
        StatusResponse s = channels.callAt(endpoint, "status", c -> MaintenanceGrpc.newBlockingStub(c)
                .withDeadlineAfter(channels.timeout().toMillis(), TimeUnit.MILLISECONDS).status(StatusRequest.getDefaultInstance()));
        return new EndpointStatus(endpoint, s.getHeader().getMemberId(), s.getLeader(), s.getRaftTerm(), s.getRaftIndex(),
                s.getRaftAppliedIndex(), s.getIsLearner(), s.getVersion(), s.getErrorsList());
    }

    private KVGrpc.KVBlockingStub kv(Channel channel) {
        return KVGrpc.newBlockingStub(channel).withDeadlineAfter(channels.timeout().toMillis(), TimeUnit.MILLISECONDS);
    }

    private LeaseGrpc.LeaseBlockingStub lease(Channel channel) {
        return LeaseGrpc.newBlockingStub(channel).withDeadlineAfter(channels.timeout().toMillis(), TimeUnit.MILLISECONDS);
    }

    private static long wholeSeconds(Duration ttl) {
        if (ttl.isNegative() || ttl.getSeconds() < 1 || ttl.getNano() != 0) {
            throw new IllegalArgumentException("an etcd lease's TTL is a whole number of seconds, at least 1; got " + ttl);
        }
        return ttl.getSeconds();
    }

    private ClusterGrpc.ClusterBlockingStub cluster(Channel channel) {
        return ClusterGrpc.newBlockingStub(channel).withDeadlineAfter(channels.timeout().toMillis(), TimeUnit.MILLISECONDS);
    }

    private static List<EtcdMember> members(List<Member> members) {
        return members.stream().map(EtcdClient::member).toList();
    }

    private static EtcdMember member(Member m) {
        return new EtcdMember(m.getID(), m.getName(), m.getPeerURLsList(), m.getClientURLsList(), m.getIsLearner());
    }

    /** The end of the range of keys starting with {@code prefix}: the prefix with its last byte below 0xff raised by one. */
    static ByteString prefixEnd(ByteString prefix) {
        byte[] end = prefix.toByteArray();
        for (int i = end.length - 1; i >= 0; i--) {
            if (end[i] != (byte) 0xff) {
                end[i]++;
                return ByteString.copyFrom(end, 0, i + 1);
            }
        }
        return ByteString.copyFrom(new byte[]{0}); // every byte 0xff: to the end of the key space
    }

    private static ByteString bytes(String s) {
        return ByteString.copyFromUtf8(s);
    }

    private static String text(ByteString b) {
        return b.toString(StandardCharsets.UTF_8);
    }

    @Override
    public void close() {
        channels.close();
    }
}
